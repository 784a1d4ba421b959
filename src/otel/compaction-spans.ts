import { type Attributes, SpanKind } from '@opentelemetry/api';
import type {
  CompactionFailed,
  CompactionFinished,
  CompactionStarted,
  EmergencyPruneApplied,
  MutationFinished,
  MutationStarted,
} from '../events/telemetry-events.js';
import type { CompactionReason } from '../vocabulary/index.js';
import { GEN_AI_CONVERSATION_COMPACTED, GEN_AI_CONVERSATION_ID } from './gen-ai-attributes.js';
import {
  COMPACTION_SPAN_NAME,
  LOOPKEEPER_COMPACTION_ATTEMPT,
  LOOPKEEPER_COMPACTION_EFFECTIVE,
  LOOPKEEPER_COMPACTION_FITS,
  LOOPKEEPER_COMPACTION_REACTIVE,
  LOOPKEEPER_COMPACTION_REASON,
  LOOPKEEPER_COMPACTION_STRATEGIES,
  LOOPKEEPER_COMPACTION_TIER,
  LOOPKEEPER_COMPACTION_TOKENS_AFTER,
  LOOPKEEPER_COMPACTION_TOKENS_BEFORE,
  LOOPKEEPER_MUTATION_DIRTY,
  LOOPKEEPER_MUTATION_POINT,
  LOOPKEEPER_MUTATOR,
  MUTATION_SPAN_NAME,
} from './loopkeeper-attributes.js';
import type { RecorderSettings } from './recorder-settings.js';
import { failSpan, parentContextOf, type RunSpans } from './run-spans.js';

/** The compactor's own name for the emergency prune, in `MutationStarted` / `MutationFinished`. */
const EMERGENCY_PRUNE = 'emergencyPrune';

/** A compaction is reactive when a provider refused the request, not when a trigger fired. */
function isReactive(reason: CompactionReason): boolean {
  return reason === 'overflow' || reason === 'payload_too_large';
}

function reasonAttributes(reason: CompactionReason): Attributes {
  return {
    [LOOPKEEPER_COMPACTION_REASON]: reason,
    [LOOPKEEPER_COMPACTION_REACTIVE]: isReactive(reason),
  };
}

export function startCompaction(
  run: RunSpans,
  event: CompactionStarted,
  settings: RecorderSettings,
): void {
  run.compactionReason = event.reason;
  run.compaction = settings.tracer.startSpan(
    COMPACTION_SPAN_NAME,
    {
      kind: SpanKind.INTERNAL,
      startTime: event.at,
      attributes: {
        [GEN_AI_CONVERSATION_ID]: event.sessionId,
        [LOOPKEEPER_COMPACTION_ATTEMPT]: event.attempt,
        ...reasonAttributes(event.reason),
      },
    },
    run.context,
  );
}

/** Ends the compaction span and marks the run with a `gen_ai.conversation.compacted` event. */
export function finishCompaction(run: RunSpans, event: CompactionFinished): void {
  const attributes: Attributes = {
    ...reasonAttributes(event.reason),
    [LOOPKEEPER_COMPACTION_TIER]: event.tier,
    [LOOPKEEPER_COMPACTION_STRATEGIES]: [...event.strategies],
    [LOOPKEEPER_COMPACTION_TOKENS_BEFORE]: event.tokensBefore,
    [LOOPKEEPER_COMPACTION_TOKENS_AFTER]: event.tokensAfter,
    [LOOPKEEPER_COMPACTION_EFFECTIVE]: event.effective,
  };
  run.span.addEvent(GEN_AI_CONVERSATION_COMPACTED, attributes, event.at);
  run.compaction?.setAttributes(attributes);
  run.compaction?.end(event.at);
  run.compaction = undefined;
}

export function failCompaction(run: RunSpans, event: CompactionFailed): void {
  if (run.compaction === undefined) return;
  failSpan(run.compaction, event.error);
  run.compaction.end(event.at);
  run.compaction = undefined;
}

/**
 * A mutator's run. The compactor's own mutation is part of its compaction span; the emergency
 * prune is a compaction of its own (tier `emergency`); a host mutator gets a mutation span.
 */
export function startMutation(
  run: RunSpans,
  event: MutationStarted,
  settings: RecorderSettings,
): void {
  if (run.compaction !== undefined) return;
  const emergency = event.mutator === EMERGENCY_PRUNE;
  const span = settings.tracer.startSpan(
    emergency ? COMPACTION_SPAN_NAME : MUTATION_SPAN_NAME,
    {
      kind: SpanKind.INTERNAL,
      startTime: event.at,
      attributes: {
        [GEN_AI_CONVERSATION_ID]: event.sessionId,
        [LOOPKEEPER_MUTATOR]: event.mutator,
        [LOOPKEEPER_MUTATION_POINT]: event.point,
        ...(emergency
          ? {
              [LOOPKEEPER_COMPACTION_TIER]: 'emergency',
              ...reasonAttributes(run.compactionReason ?? 'threshold'),
            }
          : {}),
      },
    },
    parentContextOf(run),
  );
  if (emergency) run.emergency = span;
  else run.mutations.set(event.mutator, span);
}

export function finishMutation(run: RunSpans, event: MutationFinished): void {
  if (run.compaction !== undefined) {
    run.compaction.setAttributes({
      [LOOPKEEPER_MUTATOR]: event.mutator,
      [LOOPKEEPER_MUTATION_POINT]: event.point,
      [LOOPKEEPER_MUTATION_DIRTY]: event.dirty,
    });
    return;
  }
  const emergency = event.mutator === EMERGENCY_PRUNE;
  const span = emergency ? run.emergency : run.mutations.get(event.mutator);
  if (span === undefined) return;
  if (emergency) run.emergency = undefined;
  else run.mutations.delete(event.mutator);
  span.setAttribute(LOOPKEEPER_MUTATION_DIRTY, event.dirty);
  span.end(event.at);
}

export function recordEmergencyPrune(run: RunSpans, event: EmergencyPruneApplied): void {
  const attributes: Attributes = {
    ...reasonAttributes(run.compactionReason ?? 'threshold'),
    [LOOPKEEPER_COMPACTION_TIER]: 'emergency',
    [LOOPKEEPER_COMPACTION_TOKENS_BEFORE]: event.tokensBefore,
    [LOOPKEEPER_COMPACTION_TOKENS_AFTER]: event.tokensAfter,
    [LOOPKEEPER_COMPACTION_FITS]: event.fits,
  };
  run.span.addEvent(GEN_AI_CONVERSATION_COMPACTED, attributes, event.at);
  run.emergency?.setAttributes(attributes);
}
