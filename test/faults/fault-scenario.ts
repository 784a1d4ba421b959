import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AgentLoopActor,
  createCompactor,
  defineTool,
  effectiveHistory,
  extractiveSummarizer,
  FileSessionStore,
  type Item,
  type ModelAdapter,
  openAgentLoop,
  openAIChatModel,
  runTurn,
  type SessionEvent,
  type SessionStore,
  type TelemetryEvent,
  tokenBudgetTrigger,
  validateTranscript,
} from 'loopkeeper';
import type { Compactor } from 'loopkeeper/compaction';
import type { TurnResult } from 'loopkeeper/runtime';
import { type FakeOpenAIServer, type FakeReply, startFakeOpenAIServer } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import type { AnyToolDefinition } from 'loopkeeper/tools';
import { whenIdle } from '../support/loop-harness.js';
import { type FaultRow, keepsPrefix } from './fault-row.js';

export const lookup = defineTool({
  name: 'lookup',
  description: 'Looks up a word.',
  parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  execute: ({ word }: { word: string }) => `definition of ${word}: ${'meaning '.repeat(40)}`,
});

/** The warm-up turn every scenario starts with: a tool call, then an answer. */
const warmUpReplies: readonly FakeReply[] = [
  { toolCalls: [{ id: 'call_warm', name: 'lookup', arguments: { word: 'loop' } }] },
  { text: `A loop repeats. ${'Some context for later. '.repeat(30)}` },
];

export interface FaultScenario {
  readonly fault: string;
  /** Replies of the faulty turn, queued after the warm-up; later requests get a plain answer. */
  readonly replies: readonly FakeReply[];
  /** Model options of the faulty turn only; the other turns use plain options. */
  readonly model?: {
    readonly stream?: boolean;
    readonly timeout?: number;
    readonly maxRetries?: number;
  };
  readonly tools?: readonly AnyToolDefinition[];
  readonly compactor?: (tokens: TokenCounter) => Compactor;
  readonly toolTimeoutMs?: number;
  /** Wraps the file store the loop writes through, e.g. to fail a write. */
  readonly store?: (inner: SessionStore) => SessionStore;
  /** Attached just before the faulty turn, e.g. to abort it at the right moment. */
  readonly during?: (context: {
    readonly loop: AgentLoopActor;
    readonly server: FakeOpenAIServer;
  }) => void;
}

/** Everything a test needs to check one row beyond what the row itself says. */
export interface FaultResult {
  readonly row: FaultRow;
  readonly finished: TurnResult;
  /** State value of the actor once the faulty run ended. */
  readonly stateAfterFault: unknown;
  /** The log validates once the next turn has run (a failed closing write heals then). */
  readonly finalLogValid: boolean;
  /** Telemetry of the faulty turn only. */
  readonly telemetry: readonly TelemetryEvent[];
  /** Items the faulty turn appended (from its `items-appended` events). */
  readonly appended: readonly Item[];
  /** Events the faulty turn logged. */
  readonly logged: readonly SessionEvent[];
  /** Model HTTP requests the faulty turn made, retries included. */
  readonly requests: number;
  /** The raw bodies of those requests. */
  readonly requestBodies: readonly string[];
}

/** A compactor that never fires on its own: it only answers provider refusals. */
export function reactiveCompactor(): Compactor {
  return createCompactor({
    trigger: tokenBudgetTrigger({ maxTokens: 100_000 }),
    backend: extractiveSummarizer(),
    structural: { pruneToolResults: { protectRecentTokens: 0, minSavingsTokens: 10 } },
    summary: { keepRecentTokens: 100 },
  });
}

async function readEvents(directory: string, sessionId: string): Promise<SessionEvent[]> {
  // A second store on the same directory: reading takes no lock, and proves the data is on disk.
  const reader = new FileSessionStore({ directory });
  const events: SessionEvent[] = [];
  for await (const event of reader.read(sessionId)) events.push(event);
  await reader.close();
  return events;
}

/** What the loop visibly did about the fault: attempts, compactions, error results. */
function describeHandling({
  telemetry,
  requests,
  appended,
}: {
  telemetry: readonly TelemetryEvent[];
  requests: number;
  appended: readonly Item[];
}): string {
  const parts = [`${requests} HTTP request${requests === 1 ? '' : 's'}`];
  for (const event of telemetry) {
    if (event.type === 'CompactionStarted') parts.push(`compaction (${event.reason})`);
    if (event.type === 'CompactionFinished') parts.push(`${event.tier} tier`);
    if (event.type === 'CompactionFailed') parts.push(`summary refused: ${event.error.code}`);
    if (event.type === 'EmergencyPruneApplied') {
      parts.push(`emergency prune (${event.fits ? 'fits' : 'does not fit'})`);
    }
  }
  const errorResults = appended.filter((item) => item.kind === 'toolResult' && item.isError);
  // The loop's own answers to calls a run left open (aborted, failed, interrupted).
  const synthetic = errorResults.filter(
    (item) => item.kind === 'toolResult' && item.content.startsWith('[loopkeeper]'),
  );
  if (synthetic.length > 0) {
    parts.push(`${synthetic.length} synthetic result(s) for open calls`);
  }
  if (errorResults.length > synthetic.length) {
    parts.push(`${errorResults.length - synthetic.length} isError tool result(s)`);
  }
  return parts.join(', ');
}

/**
 * Runs one row of the fault matrix over the real openai SDK, the fake server and a file store
 * in a temp dir: a warm-up turn, the faulty turn, then one more turn. Cleans up after itself.
 */
export async function runFaultScenario(
  scenario: FaultScenario,
  tokens: TokenCounter,
): Promise<FaultResult> {
  const directory = await mkdtemp(join(tmpdir(), 'loopkeeper-fault-'));
  const server = await startFakeOpenAIServer({
    replies: warmUpReplies,
    handler: () => ({ text: 'All good.' }),
  });
  const store = new FileSessionStore({ directory });
  const sessionId = 'fault-session';
  const plain = openAIChatModel({
    baseURL: server.url,
    apiKey: 'test-key',
    model: 'gpt-test',
    maxRetries: 0,
  });
  const faulty = openAIChatModel({
    baseURL: server.url,
    apiKey: 'test-key',
    model: 'gpt-test',
    maxRetries: 0,
    ...scenario.model,
  });
  // A short timeout must not fail the warm-up on a loaded machine: it applies to the faulty turn only.
  let current: ModelAdapter = plain;
  const model: ModelAdapter = {
    name: 'switching',
    generate: (request) => current.generate(request),
  };
  let loop: AgentLoopActor | undefined;
  try {
    loop = await openAgentLoop({
      model,
      tools: [lookup, ...(scenario.tools ?? [])],
      compactor: scenario.compactor?.(tokens) ?? reactiveCompactor(),
      store: scenario.store?.(store) ?? store,
      sessionId,
      tokens,
      ...(scenario.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: scenario.toolTimeoutMs }),
    });
    const live = loop;
    live.start();
    const warmUp = await runTurn(live, 'What is a loop?');
    if (warmUp.outcome !== 'completed') {
      throw new Error(`warm-up turn ended ${warmUp.outcome}: ${warmUp.error?.message}`);
    }
    const before = await readEvents(directory, sessionId);
    const requestsBefore = server.requests.length;

    server.enqueue(...scenario.replies);
    const telemetry: TelemetryEvent[] = [];
    const recording = live.on('*', (event) => {
      telemetry.push(event);
    });
    scenario.during?.({ loop: live, server });
    current = faulty;
    const finished = await runTurn(live, 'Now something goes wrong.');
    await whenIdle(live);
    current = plain;
    recording.unsubscribe();
    const stateAfterFault = live.getSnapshot().value;
    const requestBodies = server.requests.slice(requestsBefore).map((request) => request.rawBody);
    const requests = requestBodies.length;

    const after = await readEvents(directory, sessionId);
    const history = effectiveHistory(after);
    const logValid =
      validateTranscript(history).length === 0 &&
      JSON.stringify(history) === JSON.stringify(live.session.items);
    const logged = after.slice(before.length);
    const appended = logged.flatMap((event) =>
      event.type === 'items-appended' ? event.items : [],
    );

    const next = await runTurn(live, 'Are you still there?');
    const final = await readEvents(directory, sessionId);
    const finalValid = validateTranscript(effectiveHistory(final)).length === 0;

    return {
      row: {
        fault: scenario.fault,
        outcome: finished.outcome,
        errorCode: finished.error?.code ?? '-',
        handled: describeHandling({ telemetry, requests, appended }),
        logValid: logValid && finalValid,
        itemsKept: keepsPrefix(before, after) && keepsPrefix(after, final),
        nextTurn: next.outcome,
      },
      finished,
      stateAfterFault,
      /** The log validates once the next turn has run (a failed closing write heals then). */
      finalLogValid: finalValid,
      telemetry,
      appended,
      logged,
      requests,
      requestBodies,
    };
  } finally {
    loop?.stop();
    await store.close();
    await server.close();
    await rm(directory, { recursive: true, force: true });
  }
}
