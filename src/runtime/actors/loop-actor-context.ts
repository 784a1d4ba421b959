import type { AnyActorRef } from 'xstate';
import type { Compactor } from '../../compaction/compactor.js';
import { replacedItemId } from '../../compaction/helpers/derived-item.js';
import type { LoopMutator, MutationMarker } from '../../compaction/types.js';
import type { TelemetryEvent } from '../../events/telemetry-events.js';
import { buildReplacementView } from '../../log/replacement-view.js';
import type { ModelAdapter, ToolSpec } from '../../model/types.js';
import type { AnyToolDefinition } from '../../tools/types.js';
import type { Item } from '../../transcript/types.js';
import type { LoopSession } from '../loop-session.js';
import type { PromptOverhead } from '../prompt-overhead.js';

/** What the actor implementations of one loop share. */
export interface LoopActorContext {
  readonly session: LoopSession;
  readonly model: ModelAdapter;
  readonly tools: readonly AnyToolDefinition[];
  readonly instructions: string | undefined;
  readonly mutators: readonly LoopMutator[];
  readonly compactor: Compactor | undefined;
  readonly toolTimeoutMs: number | undefined;
  /** What the model is told about the tools, computed once. */
  readonly specs: readonly ToolSpec[];
  /** Tokens of a request outside its items, for budget checks between usage reports. */
  readonly overhead: PromptOverhead;
}

/**
 * Hands telemetry produced inside an invoked actor to the loop actor that invoked it, which
 * emits it to its listeners. Works the same for a root loop and for a loop spawned as a child.
 */
export function forward(self: AnyActorRef, event: TelemetryEvent): void {
  self._parent?.send({ type: 'loop.telemetry', event });
}

/** Logs a compaction or mutation as one `transcript-replaced` marker for the active run. */
export async function recordReplacement(
  session: LoopSession,
  runId: string,
  previous: readonly Item[],
  next: readonly Item[],
  marker: MutationMarker,
): Promise<void> {
  await session.appendForRun(runId, [
    {
      type: 'transcript-replaced',
      runId,
      throughSeq: session.lastSeq,
      view: buildReplacementView({ previous, next, originOf: replacedItemId }),
      reason: marker.reason,
      tier: marker.tier,
      strategies: marker.strategies,
      tokensBefore: marker.tokensBefore,
      tokensAfter: marker.tokensAfter,
    },
  ]);
}
