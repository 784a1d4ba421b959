import { type AnyActorLogic, type AnyActorRef, type PromiseActorLogic, transition } from 'xstate';
import type {
  AgentLoopActorName,
  AgentLoopActorTypes,
  CompactOutput,
} from '../../../machines/agent-loop.types.js';
import type { TelemetryEvent } from '../../events/telemetry-events.js';
import type { SessionEvent, TranscriptReplacedEvent } from '../../log/events.js';
import type { SerializedError } from '../../vocabulary/index.js';
import type { LogCursor } from './log-cursor.js';

/** How a step of the replayed loop ended, as its log shows it, and what its actor reported. */
export type LogAnswer<Output = unknown> = (
  | { readonly status: 'done'; readonly output: Output }
  | { readonly status: 'error'; readonly error: unknown }
) & {
  /** Log events the step wrote. */
  readonly read: number;
  /** Telemetry the actor reports as it starts, and before it is done. */
  readonly started?: readonly TelemetryEvent[];
  readonly finished?: readonly TelemetryEvent[];
};

type Answering<Name extends AgentLoopActorName> = (
  input: AgentLoopActorTypes[Name]['input'],
  log: LogCursor,
) => LogAnswer<AgentLoopActorTypes[Name]['output']> | undefined;

/** The event that makes an actor of the replay read its answer off the log. */
const READ_LOG = { type: 'replay.readLog' } as const;

const done = <Output>(
  output: Output,
  read = 0,
  telemetry: Pick<LogAnswer, 'started' | 'finished'> = {},
) => ({ status: 'done', output, read, ...telemetry }) as const;
const failed = (error: unknown, started?: readonly TelemetryEvent[]): LogAnswer<never> => ({
  status: 'error',
  error,
  read: 0,
  ...(started === undefined ? {} : { started }),
});

/** A failure as the log recorded it, thrown again so the machine records it unchanged. */
const recordedFailure = (error: SerializedError | undefined) => ({
  ...(error ?? { name: 'Error', code: 'unexpected', message: 'The run failed' }),
  [Symbol.for('loopkeeper.error')]: true,
});

const marker = (event: SessionEvent | undefined, tiers: readonly string[]) =>
  event?.type === 'transcript-replaced' && tiers.includes(event.tier) ? event : undefined;
const COMPACTION_TIERS = ['structural', 'summary'];
const failedRun = (event: SessionEvent | undefined) =>
  event?.type === 'run-finished' && event.outcome === 'failed' ? event : undefined;
const toolResultsOnly = (event: SessionEvent | undefined) =>
  event?.type === 'items-appended' && event.items.every((item) => item.kind === 'toolResult');

function compactionOf(
  event: Pick<TranscriptReplacedEvent, 'tier' | 'strategies' | 'tokensBefore' | 'tokensAfter'>,
  effective: boolean,
): CompactOutput {
  const { tier, strategies, tokensBefore, tokensAfter } = event;
  const status = effective ? 'effective' : 'ineffective';
  return {
    status,
    changed: true,
    tier,
    strategies,
    tokensBefore,
    tokensAfter,
    durationMs: 0,
    metadata: {},
  };
}

const compact = (_input: unknown, log: LogCursor): LogAnswer<CompactOutput> | undefined => {
  const next = log.peek();
  const compaction = marker(next, COMPACTION_TIERS);
  // A compaction the emergency prune follows left the history over the line.
  if (compaction) return done(compactionOf(compaction, !marker(log.peek(1), ['emergency'])), 1);
  if (marker(next, ['emergency'])) {
    const nothing = {
      tier: 'structural',
      strategies: [],
      tokensBefore: 0,
      tokensAfter: 0,
    } as const;
    return done({ ...compactionOf(nothing, false), changed: false });
  }
  return failedRun(next) ? failed(recordedFailure(failedRun(next)?.error)) : undefined;
};

/** The actors of the loop, answering from the log instead of doing the work. */
const ANSWERS = {
  beginRun: (_input, log) => {
    const next = log.peek();
    const user = next?.type === 'items-appended' && next.items.some((item) => item.kind === 'user');
    return user ? done(undefined, 1) : undefined;
  },
  checkBudget: (_input, log) => {
    const next = log.peek();
    if (next === undefined) return undefined;
    const over = marker(next, [...COMPACTION_TIERS, 'emergency']);
    if (over?.reason === 'threshold') {
      return done({ over: true, tokens: over.tokensBefore, basis: 'estimate' as const });
    }
    // A run that failed before its next inference: the failure is shown at the budget check.
    const failure = failedRun(next);
    if (failure !== undefined && failure.steps <= log.answered) {
      return failed(recordedFailure(failure.error));
    }
    return done({ over: false, tokens: 0, basis: 'estimate' as const });
  },
  runMutator: ({ mutator }, log) => {
    const next = log.peek();
    if (next === undefined) return undefined;
    const dirty = marker(next, ['mutator'])?.strategies[0] === mutator;
    return done({ dirty, valid: true, metadata: {} }, dirty ? 1 : 0);
  },
  callModel: ({ sessionId, runId, step }, log) => {
    const usage = log.peek()?.type === 'usage-reported' ? log.peek() : undefined;
    const reported = usage?.type === 'usage-reported' ? usage : undefined;
    let offset = reported === undefined ? 0 : 1;
    if (marker(log.peek(offset), ['provider'])) offset += 1;
    const answer = log.peek(offset);
    const first = log.peek();
    if (first === undefined) return undefined;
    const started: TelemetryEvent[] = [
      {
        type: 'InferenceStarted',
        sessionId,
        runId,
        at: Date.parse(first.at),
        step,
        estimatedPromptTokens: reported?.estimatedPromptTokens ?? 0,
        ...(reported === undefined ? {} : { model: reported.model }),
      },
    ];
    const assistant =
      answer?.type === 'items-appended'
        ? answer.items.find((item) => item.kind === 'assistant')
        : undefined;
    if (assistant?.kind === 'assistant') {
      const toolCalls = assistant.toolCalls?.length ?? 0;
      const usageOutput =
        reported === undefined
          ? null
          : {
              promptTokens: reported.promptTokens,
              completionTokens: reported.completionTokens,
              ...(reported.cachedTokens === undefined
                ? {}
                : { cachedTokens: reported.cachedTokens }),
            };
      return done(
        {
          kind: toolCalls > 0 ? ('toolCalls' as const) : ('final' as const),
          toolCalls,
          usage: usageOutput,
          durationMs: 0,
          ...(reported === undefined ? {} : { model: reported.model }),
        },
        offset + 1,
        { started },
      );
    }
    // The provider refused the request as too large: the loop compacts and asks again.
    const refused = marker(first, [...COMPACTION_TIERS, 'emergency']);
    if (refused !== undefined && refused.reason !== 'threshold' && refused.reason !== 'manual') {
      const code =
        refused.reason === 'overflow' ? 'model_context_overflow' : 'model_payload_too_large';
      return failed(
        recordedFailure({
          name: 'ModelError',
          code,
          message: `The provider refused the request (${refused.reason})`,
        }),
        started,
      );
    }
    if (first.type === 'run-finished' && first.outcome !== 'aborted') {
      return failed(recordedFailure(first.error), started);
    }
    return undefined;
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
      const toolName = log.openCalls.find((call) => call.id === next.callId)?.name ?? '';
      const reason = next.reason === undefined ? {} : { reason: next.reason };
      recorded.push({ callId: next.callId, approved: next.approved, ...reason, toolName });
    }
    return recorded.length === 0 ? undefined : done({ recorded }, recorded.length);
  },
  runTools: ({ sessionId, runId }, log) => {
    const calls = new Map(log.openCalls.map((call) => [call.id, call.name]));
    const ran = new Set<string>();
    const started: TelemetryEvent[] = [];
    const finished: TelemetryEvent[] = [];
    let errors = 0;
    let offset = 0;
    const start = (callId: string, at: number) => {
      if (ran.has(callId)) return;
      ran.add(callId);
      started.push({
        type: 'ToolCallStarted',
        sessionId,
        runId,
        at,
        callId,
        toolName: calls.get(callId) ?? '',
      });
    };
    for (const open = new Set(calls.keys()); open.size > 0; offset += 1) {
      const next = log.peek(offset);
      if (next === undefined) return undefined;
      const at = Date.parse(next.at);
      if (next.type === 'tool-calls-started') {
        for (const { callId } of next.calls) start(callId, at);
      } else if (next.type === 'items-appended' && toolResultsOnly(next)) {
        for (const item of next.items) {
          if (item.kind !== 'toolResult') continue;
          open.delete(item.callId);
          errors += item.isError ? 1 : 0;
          // Before schema 4 no call was refused or logged as started: every call ran.
          if (next.v < 4) start(item.callId, at);
          if (!ran.has(item.callId)) continue;
          const { callId, toolName, isError, content } = item;
          finished.push({
            type: 'ToolCallFinished',
            sessionId,
            runId,
            at,
            callId,
            toolName,
            isError,
            durationMs: 0,
            outputLength: content.length,
          });
        }
      } else return undefined;
    }
    return done({ results: calls.size, errors }, offset, { started, finished });
  },
  compact,
  compactNow: compact,
  emergencyPrune: (_input, log) => {
    const next = log.peek();
    const prune = marker(next, ['emergency']);
    if (prune === undefined)
      return failedRun(next) ? failed(recordedFailure(failedRun(next)?.error)) : undefined;
    const { tokensBefore, tokensAfter } = prune;
    return done(
      { status: 'fits' as const, changed: true, tokensBefore, tokensAfter, metadata: {} },
      1,
    );
  },
  finishRun: (_input, log) => closing(log),
  abortRun: (_input, log) => closing(log),
} satisfies { readonly [Name in AgentLoopActorName]?: Answering<Name> };

/** A run's end: synthetic results for calls still open, then `run-finished` (none if a later run began). */
function closing(log: LogCursor): LogAnswer<undefined> | undefined {
  let offset = 0;
  while (toolResultsOnly(log.peek(offset))) offset += 1;
  const next = log.peek(offset);
  if (next?.type === 'run-finished') return done(undefined, offset + 1);
  return next?.type === 'run-started' ? done(undefined) : undefined;
}

/**
 * The loop's actors for a replay, to bind with `agentLoopMachine.provide({actors})`: each waits
 * (an active promise actor) until `readAnswer` asks it for its step's outcome, which it reads off
 * the log after `log`'s position.
 */
export function logActors(log: LogCursor) {
  const answers = new WeakMap<object, LogAnswer>();
  function logActor<Name extends AgentLoopActorName>(
    answer: Answering<Name>,
  ): PromiseActorLogic<AgentLoopActorTypes[Name]['output'], AgentLoopActorTypes[Name]['input']> {
    return {
      getInitialSnapshot: (_scope, input) => ({
        status: 'active',
        output: undefined,
        error: undefined,
        input,
      }),
      getPersistedSnapshot: (snapshot) => snapshot,
      transition: (snapshot, event) => {
        if (event.type !== READ_LOG.type || snapshot.input === undefined) return snapshot;
        const found = answer(snapshot.input, log);
        if (found === undefined) return snapshot;
        const next =
          found.status === 'done'
            ? {
                status: 'done' as const,
                output: found.output,
                error: undefined,
                input: snapshot.input,
              }
            : {
                status: 'error' as const,
                output: undefined,
                error: found.error,
                input: snapshot.input,
              };
        answers.set(next, found);
        return next;
      },
    };
  }
  const actors = {
    beginRun: logActor<'beginRun'>(ANSWERS.beginRun),
    checkBudget: logActor<'checkBudget'>(ANSWERS.checkBudget),
    runMutator: logActor<'runMutator'>(ANSWERS.runMutator),
    callModel: logActor<'callModel'>(ANSWERS.callModel),
    gateTools: logActor<'gateTools'>(ANSWERS.gateTools),
    recordDecisions: logActor<'recordDecisions'>(ANSWERS.recordDecisions),
    runTools: logActor<'runTools'>(ANSWERS.runTools),
    compact: logActor<'compact'>(ANSWERS.compact),
    compactNow: logActor<'compactNow'>(ANSWERS.compactNow),
    emergencyPrune: logActor<'emergencyPrune'>(ANSWERS.emergencyPrune),
    finishRun: logActor<'finishRun'>(ANSWERS.finishRun),
    abortRun: logActor<'abortRun'>(ANSWERS.abortRun),
  };
  const bySource = new Map<string, AnyActorLogic>(Object.entries(actors));
  return {
    actors,
    /** The answer of a running actor of the replay, once the log shows how its step ended. */
    readAnswer(child: AnyActorRef): LogAnswer | undefined {
      const logic = typeof child.src === 'string' ? bySource.get(child.src) : undefined;
      if (logic === undefined) return undefined;
      const [answered] = transition(logic, child.getSnapshot(), READ_LOG);
      return answers.get(answered);
    },
  };
}
