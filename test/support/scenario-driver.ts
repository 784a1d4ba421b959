import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AgentLoopActor,
  effectiveHistory,
  FileSessionStore,
  type Item,
  type LoopMutator,
  MemorySessionStore,
  type ModelAdapter,
  openAgentLoop,
  openAIChatModel,
  runTurn,
  type SessionEvent,
  type SessionStore,
  type TelemetryEvent,
  validateTranscript,
} from 'loopkeeper';
import type { Compactor } from 'loopkeeper/compaction';
import type { UserContent } from 'loopkeeper/machines';
import type { OpenAIChatModelOptions } from 'loopkeeper/model';
import type { TurnResult } from 'loopkeeper/runtime';
import { type FakeReply, type FakeRequest, startFakeOpenAIServer } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import type { AnyToolDefinition } from 'loopkeeper/tools';
import type { ProtocolProblem } from 'loopkeeper/transcript';
import { readSession, whenIdle } from './loop-harness.js';

/**
 * One driver for every scenario test (the bad-input catalogue, the fault matrix, the fuzz): a
 * loop over the real openai SDK, over HTTP to the fake server, driven through a script of
 * messages, with the faults and aborts each step asks for, and a record of everything a test
 * checks afterwards.
 */

/** What a scenario's fakes (tools, summarizer, fallback replies) can do to the loop they serve. */
export interface ScenarioContext {
  readonly tokens: TokenCounter;
  /** Sends `abort` on the next tick, as a host would; does nothing once the loop has stopped. */
  abortSoon(): void;
}

/** Model options a scenario or one step may set; the server, key and model name are the driver's. */
export type ScenarioModelOptions = Partial<
  Pick<OpenAIChatModelOptions, 'stream' | 'timeout' | 'maxRetries' | 'maxRetryWaitMs'>
>;

/** When a step sends `abort`. */
export type ScenarioAbort =
  /** As soon as the step's first model request has reached the fake server. */
  | { readonly when: 'request-received' }
  /** `delayMs` after a tool call (of `toolName`, when given) has started. */
  | { readonly when: 'tool-started'; readonly toolName?: string; readonly delayMs: number };

export interface ScenarioStep {
  /** The message, sent with `runTurn`; malformed on purpose in the bad-input catalogue. */
  readonly send: unknown;
  /** Replies for this step's requests, in order; later requests get the scenario's `reply`. */
  readonly replies?: readonly FakeReply[];
  /** Model options for this step only, e.g. a short timeout that must not fail the other turns. */
  readonly model?: ScenarioModelOptions;
  readonly abort?: ScenarioAbort;
  /** The scenario throws unless this step completes: a warm-up the test's claims rest on. */
  readonly mustComplete?: boolean;
}

export interface ScenarioOptions {
  readonly tokens: TokenCounter;
  readonly steps: readonly ScenarioStep[];
  /** Answers a request no step reply is left for; default a plain text answer. */
  readonly reply?: (request: FakeRequest, context: ScenarioContext) => FakeReply;
  /** Model options of every step (default `maxRetries: 0`). */
  readonly model?: ScenarioModelOptions;
  /**
   * Answers in process instead of over HTTP: for the fuzz, whose thousands of requests would
   * take several times as long through the SDK. Steps then take no `replies` and no `model`.
   */
  readonly inProcessModel?: (context: ScenarioContext) => ModelAdapter;
  readonly tools?:
    | readonly AnyToolDefinition[]
    | ((context: ScenarioContext) => readonly AnyToolDefinition[]);
  readonly compactor?: Compactor | ((context: ScenarioContext) => Compactor);
  readonly mutators?: readonly LoopMutator[];
  readonly toolTimeoutMs?: number;
  readonly maxStepsPerRun?: number;
  readonly maxConsecutiveCompactions?: number;
  /**
   * `memory` (default), or `file`: a `FileSessionStore` in a temp dir, read back through a
   * second store on the directory, which proves the events are on disk.
   */
  readonly store?: 'memory' | 'file';
  /** Wraps the store the loop writes through, e.g. to fail a write. */
  readonly wrapStore?: (inner: SessionStore) => SessionStore;
  /** After the last step, open a second loop on the log and report what it sees. */
  readonly reopen?: boolean;
}

/** What one step did, read from the actor, the fake server, the model adapter and the log. */
export interface ScenarioStepRecord {
  readonly finished: TurnResult;
  /** Whether the actor was in `idle` with nothing queued the moment `runTurn` resolved. */
  readonly idleAtFinish: boolean;
  /** The actor's state value once it was idle again after the step. */
  readonly state: unknown;
  /** `state` is `idle` and nothing is queued. */
  readonly idle: boolean;
  /** Telemetry the loop emitted during the step. */
  readonly telemetry: readonly TelemetryEvent[];
  /** HTTP requests the fake server received during the step, retries included. */
  readonly requests: readonly FakeRequest[];
  /** The transcript of every model request of the step, as the loop handed it to the model. */
  readonly transcripts: readonly (readonly Item[])[];
  /** Step replies no request used (they are dropped when the step ends). */
  readonly unusedReplies: number;
  /** The whole log after the step. */
  readonly log: readonly SessionEvent[];
  /** Events the step logged. */
  readonly logged: readonly SessionEvent[];
  /** Items the step appended (from its `items-appended` events). */
  readonly appended: readonly Item[];
  /** `validateTranscript(effectiveHistory(log))`. */
  readonly historyProblems: readonly ProtocolProblem[];
  /** The log's effective history equals the live session's items. */
  readonly matchesLive: boolean;
  /** The log before the step is an unchanged prefix of the log after it. */
  readonly kept: boolean;
}

export interface ScenarioRun {
  readonly steps: readonly ScenarioStepRecord[];
  /** Every telemetry event of the scenario, in order. */
  readonly telemetry: readonly TelemetryEvent[];
  /** The log after the last step. */
  readonly log: readonly SessionEvent[];
  /** Nothing logged was ever lost or rewritten: each step's log starts with the one before it. */
  readonly kept: boolean;
  /** The live session's items after the last step. */
  readonly liveItems: readonly Item[];
  /** The session as a second loop opened on the log sees it (with `reopen`). */
  readonly reopened?: { readonly items: readonly Item[]; readonly runs: number };
}

/** Whether `before` is an unchanged prefix of `after`: nothing logged earlier was lost or rewritten. */
export function keepsPrefix(
  before: readonly SessionEvent[],
  after: readonly SessionEvent[],
): boolean {
  if (after.length < before.length) return false;
  return before.every((event, index) => JSON.stringify(event) === JSON.stringify(after[index]));
}

const sessionId = 'scenario-session';

/**
 * Runs `steps` one after another on a fresh loop (`openAgentLoop`) over the real openai SDK and
 * the fake server, and returns what each step did. Cleans up (server, store, temp dir) after
 * itself, also when a step throws.
 */
export async function runScenario(options: ScenarioOptions): Promise<ScenarioRun> {
  const { tokens, steps } = options;
  let loop: AgentLoopActor | undefined;
  const context: ScenarioContext = {
    tokens,
    abortSoon: () => {
      setTimeout(() => {
        if (loop?.getSnapshot().status === 'active') loop.send({ type: 'abort' });
      }, 0);
    },
  };

  // The driver serves every reply itself, so it knows when a request arrives.
  let queued: FakeReply[] = [];
  let onRequest: (() => void) | undefined;
  const fallback = options.reply ?? (() => ({ text: 'Done.' }));
  const server = await startFakeOpenAIServer({
    handler: (request) => {
      onRequest?.();
      return queued.shift() ?? fallback(request, context);
    },
  });
  const directory =
    options.store === 'file' ? await mkdtemp(join(tmpdir(), 'loopkeeper-scenario-')) : undefined;
  const store: SessionStore =
    directory === undefined ? new MemorySessionStore() : new FileSessionStore({ directory });
  const readLog = async (): Promise<SessionEvent[]> => {
    if (directory === undefined) return readSession(store, sessionId);
    const reader = new FileSessionStore({ directory });
    try {
      return await readSession(reader, sessionId);
    } finally {
      await reader.close();
    }
  };

  const modelFor = (stepOptions: ScenarioModelOptions = {}): ModelAdapter =>
    openAIChatModel({
      baseURL: server.url,
      apiKey: 'test-key',
      model: 'gpt-test',
      maxRetries: 0,
      ...options.model,
      ...stepOptions,
    });
  const plain = options.inProcessModel?.(context) ?? modelFor();
  let current = plain;
  let transcripts: (readonly Item[])[] = [];
  const model: ModelAdapter = {
    name: 'scenario',
    model: 'gpt-test',
    generate: (request) => {
      // A copy: the loop may hand over its live history.
      transcripts.push([...request.transcript]);
      if (options.inProcessModel !== undefined) onRequest?.();
      return current.generate(request);
    },
  };

  try {
    const live = await openAgentLoop({
      model,
      tools: typeof options.tools === 'function' ? options.tools(context) : (options.tools ?? []),
      ...(options.compactor === undefined
        ? {}
        : {
            compactor:
              typeof options.compactor === 'function'
                ? options.compactor(context)
                : options.compactor,
          }),
      mutators: options.mutators ?? [],
      store: options.wrapStore?.(store) ?? store,
      sessionId,
      tokens,
      ...(options.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: options.toolTimeoutMs }),
      ...(options.maxStepsPerRun === undefined ? {} : { maxStepsPerRun: options.maxStepsPerRun }),
      ...(options.maxConsecutiveCompactions === undefined
        ? {}
        : { maxConsecutiveCompactions: options.maxConsecutiveCompactions }),
    });
    loop = live;
    const telemetry: TelemetryEvent[] = [];
    live.on('*', (event) => {
      telemetry.push(event);
    });
    live.start();

    const records: ScenarioStepRecord[] = [];
    // Nothing writes between two steps: each step starts from the log the one before left.
    let previous: readonly SessionEvent[] = await readLog();
    let kept = true;
    for (const [index, step] of steps.entries()) {
      const before = previous;
      const requestsBefore = server.requests.length;
      const telemetryBefore = telemetry.length;
      if (options.inProcessModel !== undefined && (step.replies ?? step.model) !== undefined) {
        throw new Error(
          'a scenario with an in-process model takes no step replies or model options',
        );
      }
      queued = [...(step.replies ?? [])];
      transcripts = [];
      current = step.model === undefined ? plain : modelFor(step.model);
      const stopAborting = armAbort(step.abort, live, context, (arrived) => {
        onRequest = arrived;
      });

      const finished = await runTurn(live, step.send as UserContent);
      const atFinish = live.getSnapshot();
      const idleAtFinish = atFinish.matches('idle') && atFinish.context.queue.length === 0;
      await whenIdle(live);
      stopAborting();
      onRequest = undefined;
      current = plain;
      const unusedReplies = queued.length;
      queued = [];

      if (step.mustComplete === true && finished.outcome !== 'completed') {
        throw new Error(
          `scenario step ${index} ended ${finished.outcome}: ${finished.error?.message}`,
        );
      }
      const snapshot = live.getSnapshot();
      const log = await readLog();
      const history = effectiveHistory(log);
      const logged = log.slice(before.length);
      const stepKept = keepsPrefix(before, log);
      kept &&= stepKept;
      previous = log;
      records.push({
        finished,
        idleAtFinish,
        state: snapshot.value,
        idle: snapshot.value === 'idle' && snapshot.context.queue.length === 0,
        telemetry: telemetry.slice(telemetryBefore),
        requests: server.requests.slice(requestsBefore),
        transcripts,
        unusedReplies,
        log,
        logged,
        appended: logged.flatMap((event) => (event.type === 'items-appended' ? event.items : [])),
        historyProblems: validateTranscript(history),
        matchesLive: JSON.stringify(history) === JSON.stringify(live.session.items),
        kept: stepKept,
      });
    }
    live.stop();

    const run = {
      steps: records,
      telemetry,
      log: previous,
      kept,
      liveItems: live.session.items,
    };
    if (options.reopen !== true) return run;
    // Built from the log alone; never started, so it sends nothing.
    const reopened = await openAgentLoop({ model: plain, store, sessionId, tokens });
    return { ...run, reopened: { items: reopened.session.items, runs: reopened.session.runs } };
  } finally {
    loop?.stop();
    await store.close();
    await server.close();
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  }
}

/** Arms the step's abort; returns a function that disarms it. */
function armAbort(
  abort: ScenarioAbort | undefined,
  loop: AgentLoopActor,
  context: ScenarioContext,
  setOnRequest: (arrived: (() => void) | undefined) => void,
): () => void {
  if (abort === undefined) return () => undefined;
  if (abort.when === 'request-received') {
    let sent = false;
    setOnRequest(() => {
      if (sent) return;
      sent = true;
      context.abortSoon();
    });
    return () => setOnRequest(undefined);
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const subscription = loop.on('ToolCallStarted', (event) => {
    if (abort.toolName !== undefined && event.toolName !== abort.toolName) return;
    subscription.unsubscribe();
    timer = setTimeout(() => loop.send({ type: 'abort' }), abort.delayMs);
  });
  return () => {
    subscription.unsubscribe();
    clearTimeout(timer);
  };
}
