import type { TelemetryEvent } from '../../events/telemetry-events.js';
import type { SessionEvent, TranscriptReplacedEvent } from '../../log/events.js';
import type { ModelUsage } from '../../model/types.js';
import type { UserItem } from '../../transcript/types.js';

/**
 * A state of the loop machine a replay shows (its path: the steps of a run are inside
 * `running`), with the invoked actor that leaves it.
 */
const ACTOR_OF: Readonly<Record<string, string>> = {
  'running.beginning': 'beginRun',
  'running.inferring': 'callModel',
  'running.toolResult': 'runTools',
  'running.mutating': 'runMutator',
  'running.compacting': 'compact',
  'running.emergencyPruning': 'emergencyPrune',
  finishing: 'finishRun',
  aborting: 'abortRun',
};

/** The state a run ends through: an abort leaves the step it interrupted for `aborting`. */
const ENDING_STATE: Readonly<Record<string, string>> = { aborted: 'aborting' };

/** The part of the loop's context a log can tell. */
export interface ReplayContext {
  readonly sessionId: string;
  readonly runId: string | null;
  readonly runs: number;
  readonly steps: number;
  readonly consecutiveCompactions: number;
  readonly compactionReason: string | null;
  readonly lastUsage: ModelUsage | null;
  readonly lastError: { name: string; code: string; message: string } | null;
  readonly lastOutcome: string | null;
}

/** One state the loop entered, the event that took it there, and the telemetry it emitted on the way. */
export interface ReplayStep {
  readonly state: string;
  readonly event: { readonly type: string } & Readonly<Record<string, unknown>>;
  readonly context: ReplayContext;
  readonly telemetry: readonly TelemetryEvent[];
  /** The log event this step comes from. */
  readonly seq: number;
}

/**
 * Rebuilds, from a session log alone, the states the loop went through: each run's start, every
 * inference, tool batch, compaction, emergency prune and mutator marker, and its end, with the
 * telemetry events the loop emitted. Budget checks and mutators that changed nothing leave no
 * trace in the log, so they are not shown; durations are unknown (0).
 */
export function replaySteps({
  sessionId,
  events,
}: {
  readonly sessionId: string;
  readonly events: readonly SessionEvent[];
}): ReplayStep[] {
  const steps: ReplayStep[] = [];
  let state = 'idle';
  let context: ReplayContext = {
    sessionId,
    runId: null,
    runs: 0,
    steps: 0,
    consecutiveCompactions: 0,
    compactionReason: null,
    lastUsage: null,
    lastError: null,
    lastOutcome: null,
  };
  let pending: TelemetryEvent[] = [];
  let usage: { usage: ModelUsage; model: string; estimated: number | undefined } | undefined;

  const enter = (
    next: string,
    seq: number,
    telemetry: readonly TelemetryEvent[],
    event?: ReplayStep['event'],
  ): void => {
    const actor = ACTOR_OF[state];
    steps.push({
      state: next,
      event: event ?? { type: actor === undefined ? 'xstate.init' : `xstate.done.actor.${actor}` },
      context,
      telemetry: [...pending, ...telemetry],
      seq,
    });
    pending = [];
    state = next;
  };

  for (const [index, logEvent] of events.entries()) {
    const base = {
      sessionId,
      runId: logEvent.runId ?? context.runId ?? '',
      at: Date.parse(logEvent.at),
    };
    switch (logEvent.type) {
      case 'run-started': {
        context = {
          ...context,
          runId: logEvent.runId,
          runs: context.runs + 1,
          steps: 0,
          consecutiveCompactions: 0,
        };
        const content = firstUserContent(events.slice(index + 1), logEvent.runId);
        enter('running.beginning', logEvent.seq, [{ type: 'RunStarted', ...base }], {
          type: 'user.message',
          content,
          runId: logEvent.runId,
        });
        break;
      }
      case 'usage-reported':
        usage = {
          usage: {
            promptTokens: logEvent.promptTokens,
            completionTokens: logEvent.completionTokens,
            ...(logEvent.cachedTokens === undefined ? {} : { cachedTokens: logEvent.cachedTokens }),
          },
          model: logEvent.model,
          estimated: logEvent.estimatedPromptTokens,
        };
        break;
      case 'items-appended':
        for (const item of logEvent.items) {
          if (item.kind === 'assistant') {
            context = { ...context, steps: context.steps + 1, consecutiveCompactions: 0 };
            enter('running.inferring', logEvent.seq, [
              {
                type: 'InferenceStarted',
                ...base,
                step: context.steps,
                estimatedPromptTokens: usage?.estimated ?? 0,
                ...(usage === undefined ? {} : { model: usage.model }),
              },
            ]);
            const calls = item.toolCalls ?? [];
            context = { ...context, lastUsage: usage?.usage ?? null };
            pending.push({
              type: 'InferenceFinished',
              ...base,
              step: context.steps,
              usage: usage?.usage,
              toolCalls: calls.length,
              durationMs: 0,
              ...(usage === undefined ? {} : { model: usage.model }),
            });
            usage = undefined;
            if (calls.length > 0) {
              enter(
                'running.toolResult',
                logEvent.seq,
                calls.map((call) => ({
                  type: 'ToolCallStarted' as const,
                  ...base,
                  callId: call.id,
                  toolName: call.name,
                })),
              );
            }
          } else if (item.kind === 'toolResult') {
            pending.push({
              type: 'ToolCallFinished',
              ...base,
              callId: item.callId,
              toolName: item.toolName,
              isError: item.isError,
              durationMs: 0,
              outputLength: item.content.length,
            });
          }
        }
        break;
      case 'transcript-replaced':
        replayMarker(logEvent, base);
        break;
      case 'run-finished':
        context = {
          ...context,
          lastOutcome: logEvent.outcome,
          lastError: logEvent.error ?? null,
        };
        {
          const ending = ENDING_STATE[logEvent.outcome] ?? 'finishing';
          const actor = ACTOR_OF[state] ?? 'beginRun';
          // A completed or step-limited run leaves its last step done; a failed one with the
          // step's error; an aborted one on the host's abort.
          const cause =
            logEvent.outcome === 'aborted'
              ? { type: 'abort' }
              : logEvent.outcome === 'failed'
                ? { type: `xstate.error.actor.${actor}`, error: logEvent.error ?? null }
                : undefined;
          enter(ending, logEvent.seq, [], cause);
        }
        enter('idle', logEvent.seq, [
          {
            type: 'RunFinished',
            ...base,
            outcome: logEvent.outcome,
            steps: logEvent.steps,
            error: logEvent.error,
          },
        ]);
        context = { ...context, runId: null };
        break;
    }
  }
  return steps;

  function replayMarker(
    marker: TranscriptReplacedEvent,
    base: { sessionId: string; runId: string; at: number },
  ): void {
    const tokens = { tokensBefore: marker.tokensBefore, tokensAfter: marker.tokensAfter };
    if (marker.tier === 'mutator') {
      const mutator = marker.strategies[0] ?? 'mutator';
      const point = 'AfterToolResult' as const;
      enter('running.mutating', marker.seq, [{ type: 'MutationStarted', ...base, mutator, point }]);
      pending.push({
        type: 'MutationFinished',
        ...base,
        mutator,
        point,
        dirty: true,
        metadata: {},
      });
      return;
    }
    context = {
      ...context,
      consecutiveCompactions: context.consecutiveCompactions + 1,
      compactionReason: marker.reason,
    };
    if (marker.tier === 'emergency') {
      // A compaction that left the history over the line is why an emergency prune follows.
      pending = pending.map((event) =>
        event.type === 'CompactionFinished' ? { ...event, effective: false } : event,
      );
      const point = 'BeforeInference' as const;
      enter('running.emergencyPruning', marker.seq, [
        { type: 'MutationStarted', ...base, mutator: 'emergencyPrune', point },
      ]);
      pending.push(
        { type: 'EmergencyPruneApplied', ...base, ...tokens, fits: true },
        {
          type: 'MutationFinished',
          ...base,
          mutator: 'emergencyPrune',
          point,
          dirty: true,
          metadata: {},
        },
      );
      return;
    }
    enter('running.compacting', marker.seq, [
      {
        type: 'CompactionStarted',
        ...base,
        reason: marker.reason,
        attempt: context.consecutiveCompactions,
      },
    ]);
    pending.push({
      type: 'CompactionFinished',
      ...base,
      reason: marker.reason,
      tier: marker.tier,
      strategies: marker.strategies,
      ...tokens,
      effective: true,
      durationMs: 0,
    });
  }
}

function firstUserContent(events: readonly SessionEvent[], runId: string): UserItem['content'] {
  for (const event of events) {
    if (event.type === 'items-appended' && event.runId === runId) {
      const user = event.items.find((item) => item.kind === 'user');
      if (user?.kind === 'user') return user.content;
    }
    if (event.type === 'run-finished' && event.runId === runId) break;
  }
  return '';
}
