import { type AnyActorLogic, type AnyActorRef, type PromiseActorLogic, transition } from 'xstate';
import type {
  CompactOutput,
  AgentLoopActorName as Name,
  AgentLoopActorTypes as Types,
} from '../../../machines/agent-loop.types.js';
import type { TelemetryEvent } from '../../events/telemetry-events.js';
import type { SessionEvent } from '../../log/events.js';
import type { SerializedError } from '../../vocabulary/index.js';
import { type LogCursor, toolResultsOnly } from './log-cursor.js';

/** How a step of the replayed loop ended, as its log shows it, and what its actor reported. */
export type LogAnswer<Output = unknown> = (
  | { readonly status: 'done'; readonly output: Output; readonly error: undefined }
  | { readonly status: 'error'; readonly output: undefined; readonly error: unknown }
) & {
  /** Log events the step wrote. */
  readonly read: number;
  /** Telemetry the actor reports as it starts, and before it is done. */
  readonly started?: readonly TelemetryEvent[];
  readonly finished?: readonly TelemetryEvent[];
};
type Reports = Pick<LogAnswer, 'started' | 'finished'>;

const done = <Output>(output: Output, read = 0, reports: Reports = {}) =>
  ({ status: 'done', output, error: undefined, read, ...reports }) as const;
/** A failure as the log recorded it, thrown again so the machine records it unchanged. */
const failed = (error: SerializedError | undefined, reports: Reports = {}) =>
  ({
    status: 'error',
    output: undefined,
    error: { ...error, [Symbol.for('loopkeeper.error')]: true },
    read: 0,
    ...reports,
  }) as const;

const marker = (event: SessionEvent | undefined, ...tiers: string[]) =>
  event?.type === 'transcript-replaced' && tiers.includes(event.tier) ? event : undefined;
const failedRun = (event: SessionEvent | undefined) =>
  event?.type === 'run-finished' && event.outcome === 'failed' ? failed(event.error) : undefined;

function compact(_input: unknown, log: LogCursor): LogAnswer<CompactOutput> | undefined {
  const next = log.peek();
  const compaction = marker(next, 'structural', 'summary');
  // One the log does not show (only an emergency prune follows) changed nothing.
  if (compaction === undefined && !marker(next, 'emergency')) return failedRun(next);
  const {
    tier = 'structural',
    strategies = [],
    tokensBefore = 0,
    tokensAfter = 0,
  } = compaction ?? {};
  // A compaction the emergency prune follows left the history over the line.
  const effective = compaction !== undefined && !marker(log.peek(1), 'emergency');
  const output = { tier, strategies, tokensBefore, tokensAfter, durationMs: 0, metadata: {} };
  const status = effective ? 'effective' : 'ineffective';
  return done({ status, changed: compaction !== undefined, ...output }, compaction ? 1 : 0);
}

/** A run's end: the results written for calls still open, then `run-finished`. */
function closing(_input: unknown, log: LogCursor) {
  const end = log.runEnd();
  if (end === undefined) return undefined;
  return done(undefined, end.event.type === 'run-finished' ? end.offset + 1 : 0);
}

/** The actors of the loop, answering from the log after `log`'s position instead of working. */
const answers: {
  readonly [Actor in Name]?: (
    input: Types[Actor]['input'],
    log: LogCursor,
  ) => LogAnswer<Types[Actor]['output']> | undefined;
} = {
  beginRun: (_input, log) => {
    const next = log.peek();
    const user = next?.type === 'items-appended' && next.items.some(({ kind }) => kind === 'user');
    return user ? done(undefined, 1) : undefined;
  },
  checkBudget: (_input, log) => {
    const next = log.peek();
    if (next === undefined) return undefined;
    const over = marker(next, 'structural', 'summary', 'emergency');
    if (over?.reason === 'threshold') return done({ over: true, tokens: 0, basis: 'estimate' });
    // A run that failed with no inference left to make: the failure is shown here.
    const failure = next.type === 'run-finished' && next.steps <= log.answered;
    return (failure && failedRun(next)) || done({ over: false, tokens: 0, basis: 'estimate' });
  },
  runMutator: ({ mutator }, log) => {
    if (log.peek() === undefined) return undefined;
    const dirty = marker(log.peek(), 'mutator')?.strategies[0] === mutator;
    return done({ dirty, valid: true, metadata: {} }, dirty ? 1 : 0);
  },
  callModel: ({ sessionId, runId, step }, log) => {
    const first = log.peek();
    if (first === undefined) return undefined;
    const usage = first.type === 'usage-reported' ? first : undefined;
    const model = usage === undefined ? {} : { model: usage.model };
    const estimatedPromptTokens = usage?.estimatedPromptTokens ?? 0;
    const base = { sessionId, runId, at: Date.parse(first.at), step, estimatedPromptTokens };
    const started = [{ type: 'InferenceStarted', ...base, ...model } as const];
    const offset = (usage ? 1 : 0) + (marker(log.peek(usage ? 1 : 0), 'provider') ? 1 : 0);
    const answer = log.peek(offset);
    const assistant =
      answer?.type === 'items-appended'
        ? answer.items.find(({ kind }) => kind === 'assistant')
        : undefined;
    if (assistant?.kind === 'assistant') {
      const toolCalls = assistant.toolCalls?.length ?? 0;
      const { promptTokens = 0, completionTokens = 0, cachedTokens } = usage ?? {};
      const cached = cachedTokens === undefined ? {} : { cachedTokens };
      const used = usage === undefined ? null : { promptTokens, completionTokens, ...cached };
      const kind = toolCalls > 0 ? 'toolCalls' : 'final';
      const output = { kind, toolCalls, usage: used, durationMs: 0, ...model } as const;
      return done(output, offset + 1, { started });
    }
    // The provider refused the request as too large: the loop compacted and asked again.
    const refused = marker(first, 'structural', 'summary', 'emergency')?.reason;
    if (refused === 'overflow' || refused === 'payload_too_large') {
      const code = refused === 'overflow' ? 'model_context_overflow' : 'model_payload_too_large';
      return failed(
        { name: 'ModelError', code, message: `The provider refused the request (${refused})` },
        { started },
      );
    }
    return first.type === 'run-finished' && first.outcome !== 'aborted'
      ? failed(first.error, { started })
      : undefined;
  },
  gateTools: (_input, log) => {
    const next = log.peek();
    if (next === undefined) return undefined;
    return next.type === 'approval-requested'
      ? done({ awaiting: next.calls }, 1)
      : done({ awaiting: [] });
  },
  recordDecisions: ({ decisions }, log) => {
    const recorded = [];
    for (const decision of decisions) {
      const next = log.peek(recorded.length);
      if (next?.type !== 'approval-decided' || next.callId !== decision.callId) break;
      const toolName = log.openCalls.find(({ id }) => id === next.callId)?.name ?? '';
      const reason = next.reason === undefined ? {} : { reason: next.reason };
      recorded.push({ callId: next.callId, approved: next.approved, ...reason, toolName });
    }
    return recorded.length === 0 ? undefined : done({ recorded }, recorded.length);
  },
  runTools: ({ sessionId, runId }, log) => {
    const names = new Map(log.openCalls.map(({ id, name }) => [id, name]));
    const open = new Set(names.keys());
    const ran = new Set<string>();
    const started: TelemetryEvent[] = [];
    const finished: TelemetryEvent[] = [];
    let [offset, errors] = [0, 0];
    const start = (callId: string, at: number) => {
      const toolName = names.get(callId) ?? '';
      if (!ran.has(callId))
        started.push({ type: 'ToolCallStarted', sessionId, runId, at, callId, toolName });
      ran.add(callId);
    };
    for (; open.size > 0; offset += 1) {
      const next = log.peek(offset);
      if (next === undefined || (next.type !== 'tool-calls-started' && !toolResultsOnly(next))) {
        return undefined;
      }
      const at = Date.parse(next.at);
      for (const { callId } of next.type === 'tool-calls-started' ? next.calls : [])
        start(callId, at);
      for (const item of next.type === 'items-appended' ? next.items : []) {
        if (item.kind !== 'toolResult') continue;
        const { callId, toolName, isError, content } = item;
        // Before schema 4 no call was refused or logged as started: every call ran.
        if (next.v < 4) start(callId, at);
        open.delete(callId);
        if (isError) errors += 1;
        const facts = { callId, toolName, isError, durationMs: 0, outputLength: content.length };
        if (ran.has(callId))
          finished.push({ type: 'ToolCallFinished', sessionId, runId, at, ...facts });
      }
    }
    return done({ results: names.size, errors }, offset, { started, finished });
  },
  compact,
  compactNow: compact,
  emergencyPrune: (_input, log) => {
    const prune = marker(log.peek(), 'emergency');
    if (prune === undefined) return failedRun(log.peek());
    const { tokensBefore, tokensAfter } = prune;
    return done({ status: 'fits', changed: true, tokensBefore, tokensAfter, metadata: {} }, 1);
  },
  finishRun: closing,
  abortRun: closing,
};

/** The event that makes an actor of the replay read its answer off the log. */
const READ_LOG = { type: 'replay.readLog' } as const;

/**
 * The loop's actors for a replay, to bind with `agentLoopMachine.provide({actors})`: each stays
 * active until `readAnswer` asks it how its step ended, which it reads off the log.
 */
export function logActors(log: LogCursor): {
  readonly actors: {
    readonly [Actor in Name]?: PromiseActorLogic<Types[Actor]['output'], Types[Actor]['input']>;
  };
  readonly readAnswer: (child: AnyActorRef) => LogAnswer | undefined;
} {
  const read = new WeakMap<object, LogAnswer>();
  const logActor = <Actor extends Name>(actor: Actor) =>
    ({
      getInitialSnapshot: (_scope, input) => ({
        status: 'active',
        output: undefined,
        error: undefined,
        input,
      }),
      getPersistedSnapshot: (snapshot) => snapshot,
      transition: (snapshot, event) => {
        const found =
          event.type === READ_LOG.type && snapshot.input !== undefined
            ? answers[actor]?.(snapshot.input, log)
            : undefined;
        if (found === undefined) return snapshot;
        const next = {
          ...snapshot,
          status: found.status,
          output: found.output,
          error: found.error,
        } as typeof snapshot;
        read.set(next, found);
        return next;
      },
    }) satisfies PromiseActorLogic<Types[Actor]['output'], Types[Actor]['input']>;
  const actors = {
    ...{ beginRun: logActor('beginRun'), checkBudget: logActor('checkBudget') },
    ...{ runMutator: logActor('runMutator'), callModel: logActor('callModel') },
    ...{ gateTools: logActor('gateTools'), recordDecisions: logActor('recordDecisions') },
    ...{ runTools: logActor('runTools'), compact: logActor('compact') },
    ...{ compactNow: logActor('compactNow'), emergencyPrune: logActor('emergencyPrune') },
    ...{ finishRun: logActor('finishRun'), abortRun: logActor('abortRun') },
  };
  const bySource = new Map<string, AnyActorLogic>(Object.entries(actors));
  return {
    actors,
    /** How a running actor of the replay ended, once the log shows it. */
    readAnswer(child: AnyActorRef): LogAnswer | undefined {
      const logic = typeof child.src === 'string' ? bySource.get(child.src) : undefined;
      return logic && read.get(transition(logic, child.getSnapshot(), READ_LOG)[0]);
    },
  };
}
