import { agentLoopMachine } from '../../../machines/agent-loop.machine.js';
import type { TelemetryEvent } from '../../events/telemetry-events.js';
import type { SessionEvent, TranscriptReplacedEvent } from '../../log/events.js';
import type { ModelUsage } from '../../model/types.js';
import type { UserItem } from '../../transcript/types.js';
import type { SerializedError } from '../../vocabulary/index.js';

/** A state node of the machine and, through its children, every state below it. */
interface StateTree {
  readonly path: readonly string[];
  readonly states: Readonly<Record<string, StateTree>>;
  readonly invoke: readonly { readonly src: unknown }[];
}

function invokingStatesOf(node: StateTree): [string, string][] {
  const [invoked] = node.invoke;
  const own: [string, string][] =
    typeof invoked?.src === 'string' ? [[node.path.join('.'), invoked.src]] : [];
  return [...own, ...Object.values(node.states).flatMap(invokingStatesOf)];
}

/**
 * The actor that leaves each state a replay shows, read off the machine (its path: the steps
 * of a run are inside `running`), so the replay names the actors the loop really invokes.
 */
const ACTOR_OF: Readonly<Record<string, string>> = Object.fromEntries(
  invokingStatesOf(agentLoopMachine.root),
);

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
  readonly lastError: SerializedError | null;
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
 * inference, tool batch, approval request and decision, compaction, emergency prune and mutator
 * marker, and its end, with the telemetry events the loop emitted. Budget checks and mutators
 * that changed nothing leave no trace in the log, so they are not shown; durations are unknown
 * (0). A run with no `run-finished` stays in the state its last event shows (a paused run in
 * `running.awaitingApproval`). The log does not record where a process stopped, so a run that
 * was resumed in place replays as one run, continuing from the state it was in.
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
  // The tool calls of the step's answer, from its inference until the step's tools start.
  let toolsDue: readonly { readonly id: string; readonly name: string }[] | null = null;
  const toolNames = new Map<string, string>();
  // Calls that asked for approval and have no decision yet.
  const awaiting = new Set<string>();
  // Calls that a `tool-calls-started` named (and so run and report a finish); `null` in a step
  // without one (logs before schema 4, where every call ran).
  let started: Set<string> | null = null;
  // Denied calls: they never run, so they report neither a start nor a finish.
  const denied = new Set<string>();
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
        toolsDue = null;
        started = null;
        awaiting.clear();
        denied.clear();
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
            for (const call of calls) toolNames.set(call.id, call.name);
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
            // The tools start at the step's `tool-calls-started`, or (older logs) its first result.
            toolsDue = calls.length > 0 ? calls : null;
            started = null;
          } else if (item.kind === 'toolResult') {
            if (toolsDue !== null) {
              // Results before any call started: denied calls, or a log older than schema 4.
              startTools(
                logEvent.seq,
                base,
                toolsDue.filter((call) => !denied.has(call.id)).map((call) => call.id),
              );
            }
            // A call that never ran reports no finish.
            if (denied.has(item.callId) || (started !== null && !started.has(item.callId)))
              continue;
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
      case 'approval-requested':
        for (const call of logEvent.calls) awaiting.add(call.callId);
        if (state === 'running.inferring') enter('running.gatingTools', logEvent.seq, []);
        enter('running.awaitingApproval', logEvent.seq, [
          {
            type: 'ApprovalRequested',
            ...base,
            calls: logEvent.calls.map(({ callId, toolName, arguments: text, argumentsHash }) => ({
              callId,
              toolName,
              arguments: text,
              argumentsHash,
            })),
          },
        ]);
        break;
      case 'approval-decided': {
        awaiting.delete(logEvent.callId);
        if (!logEvent.approved) denied.add(logEvent.callId);
        const reason = logEvent.reason === undefined ? {} : { reason: logEvent.reason };
        enter('running.recordingDecisions', logEvent.seq, [], {
          type: 'tool.approval',
          callId: logEvent.callId,
          approved: logEvent.approved,
          ...reason,
        });
        pending.push({
          type: 'ApprovalDecided',
          ...base,
          callId: logEvent.callId,
          toolName: toolNames.get(logEvent.callId) ?? '',
          approved: logEvent.approved,
          ...reason,
        });
        // With calls still undecided the run waits again; else its tools start next.
        if (awaiting.size > 0) enter('running.awaitingApproval', logEvent.seq, []);
        break;
      }
      case 'tool-calls-started':
        if (toolsDue === null && state !== 'running.toolResult') {
          // A run resumed in place that starts calls again (an idempotent call a crash cut off).
          toolsDue = logEvent.calls.map((call) => ({
            id: call.callId,
            name: toolNames.get(call.callId) ?? '',
          }));
        }
        if (toolsDue !== null) {
          startTools(
            logEvent.seq,
            base,
            logEvent.calls.map((call) => call.callId),
          );
        }
        started ??= new Set();
        for (const call of logEvent.calls) started.add(call.callId);
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
        toolsDue = null;
        started = null;
        awaiting.clear();
        denied.clear();
        break;
    }
  }
  return steps;

  /** The step's tools start: `toolResult`, with a `ToolCallStarted` per call that runs. */
  function startTools(
    seq: number,
    base: { sessionId: string; runId: string; at: number },
    callIds: readonly string[],
  ): void {
    enter(
      'running.toolResult',
      seq,
      callIds.map((callId) => ({
        type: 'ToolCallStarted' as const,
        ...base,
        callId,
        toolName: toolNames.get(callId) ?? '',
      })),
    );
    toolsDue = null;
  }

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
