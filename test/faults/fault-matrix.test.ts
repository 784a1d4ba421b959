import {
  createCompactor,
  defineTool,
  extractiveSummarizer,
  type SessionStore,
  tokenBudgetTrigger,
} from 'loopkeeper';
import type { Compactor } from 'loopkeeper/compaction';
import { type FakeReply, fakeFaults } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import type { AnyToolDefinition } from 'loopkeeper/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedTokenCounter } from '../support/loop-harness.js';
import {
  runScenario,
  type ScenarioAbort,
  type ScenarioModelOptions,
  type ScenarioStepRecord,
} from '../support/scenario-driver.js';
import { runCrashScenario } from './crash-scenario.js';
import { FailingStore } from './failing-store.js';
import { describeHandling, type FaultRow, faultMatrixTable } from './fault-row.js';
import {
  faultyBackend,
  longAnswer,
  type SummarizerFault,
  summarizingCompactor,
} from './summarizer-faults.js';

let tokens: TokenCounter;
const rows: FaultRow[] = [];

beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

afterAll(() => {
  // The matrix docs/reliability.md keeps; printed so a run shows it as it is today.
  console.log(`\nFault matrix (${rows.length} faults)\n\n${faultMatrixTable(rows)}\n`);
});

const explode = defineTool({
  name: 'explode',
  description: 'Always throws.',
  parameters: { type: 'object' },
  execute: () => {
    throw new Error('the disk is on fire');
  },
});

const stall = defineTool({
  name: 'stall',
  description: 'Never answers and ignores its signal.',
  parameters: { type: 'object' },
  execute: () => new Promise(() => undefined),
});

const tenMegabytes = 10 * 1024 * 1024;
const flood = defineTool({
  name: 'flood',
  description: 'Returns 10 MB of output.',
  parameters: { type: 'object' },
  execute: () => 'line of build output 0123456789 ok\n'.repeat(Math.ceil(tenMegabytes / 35)),
});

const waitForAbort = defineTool({
  name: 'wait_for_abort',
  description: 'Runs until the run is aborted.',
  parameters: { type: 'object' },
  execute: (_arguments, { signal }) =>
    new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
});

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks up a word.',
  parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  execute: ({ word }: { word: string }) => `definition of ${word}: ${'meaning '.repeat(40)}`,
});

/** The warm-up turn every row starts with: a tool call, then an answer. */
const warmUpReplies: readonly FakeReply[] = [
  { toolCalls: [{ id: 'call_warm', name: 'lookup', arguments: { word: 'loop' } }] },
  { text: `A loop repeats. ${'Some context for later. '.repeat(30)}` },
];

/** A compactor that never fires on its own: it only answers provider refusals. */
function reactiveCompactor(): Compactor {
  return createCompactor({
    trigger: tokenBudgetTrigger({ maxTokens: 100_000 }),
    backend: extractiveSummarizer(),
    structural: { pruneToolResults: { protectRecentTokens: 0, minSavingsTokens: 10 } },
    summary: { keepRecentTokens: 100 },
  });
}

/** One fault: what the faulty turn meets. */
interface FaultScenario {
  readonly fault: string;
  /** Replies of the faulty turn; later requests get a plain answer. */
  readonly replies: readonly FakeReply[];
  /** Model options of the faulty turn only; the other turns use plain options. */
  readonly model?: ScenarioModelOptions;
  readonly tools?: readonly AnyToolDefinition[];
  readonly compactor?: (tokens: TokenCounter) => Compactor;
  readonly toolTimeoutMs?: number;
  /** Wraps the file store the loop writes through, e.g. to fail a write. */
  readonly store?: (inner: SessionStore) => SessionStore;
  readonly abort?: ScenarioAbort;
}

/** What a row's test checks: the row, the faulty turn, and the turn after it. */
interface FaultResult {
  readonly row: FaultRow;
  readonly fault: ScenarioStepRecord;
  readonly next: ScenarioStepRecord;
}

/**
 * Runs one row over the real openai SDK, the fake server and a file store in a temp dir: a
 * warm-up turn, the faulty turn, then one more turn.
 */
async function runFault(scenario: FaultScenario): Promise<FaultResult> {
  const run = await runScenario({
    tokens,
    store: 'file',
    reply: () => ({ text: 'All good.' }),
    tools: [lookup, ...(scenario.tools ?? [])],
    compactor: ({ tokens }) => scenario.compactor?.(tokens) ?? reactiveCompactor(),
    ...(scenario.store === undefined ? {} : { wrapStore: scenario.store }),
    ...(scenario.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: scenario.toolTimeoutMs }),
    steps: [
      { send: 'What is a loop?', replies: warmUpReplies, mustComplete: true },
      {
        send: 'Now something goes wrong.',
        replies: scenario.replies,
        ...(scenario.model === undefined ? {} : { model: scenario.model }),
        ...(scenario.abort === undefined ? {} : { abort: scenario.abort }),
      },
      { send: 'Are you still there?' },
    ],
  });
  const [, fault, next] = run.steps;
  if (fault === undefined || next === undefined) throw new Error('the scenario ran no fault');
  return {
    row: {
      fault: scenario.fault,
      outcome: fault.finished.outcome,
      errorCode: fault.finished.error?.code ?? '-',
      handled: describeHandling({
        telemetry: fault.telemetry,
        requests: fault.requests.length,
        appended: fault.appended,
      }),
      // Valid and equal to the live session after the fault, and valid after the next turn.
      logValid:
        fault.historyProblems.length === 0 &&
        fault.matchesLive &&
        next.historyProblems.length === 0,
      itemsKept: run.kept,
      nextTurn: next.finished.outcome,
    },
    fault,
    next,
  };
}

/** A row: its scenario and what the run it hit must end with. */
interface MatrixCase extends FaultScenario {
  readonly outcome: 'completed' | 'failed' | 'aborted';
  readonly errorCode: string;
  readonly check?: (result: FaultResult) => void;
}

const summarizerFaultNames: Readonly<Record<SummarizerFault, string>> = {
  error: 'summarizer throws',
  timeout: 'summarizer never answers (timeout)',
  empty: 'summarizer returns empty text',
  sectionless: 'summarizer returns text without sections',
};

function summarizerCase(fault: SummarizerFault, code: string): MatrixCase {
  const backend = faultyBackend(fault);
  return {
    fault: summarizerFaultNames[fault],
    replies: [{ text: longAnswer }],
    // Only the hanging backend needs the short timeout; a slow machine must not turn another
    // fault into a timeout.
    compactor: () =>
      summarizingCompactor(backend, { summaryTimeoutMs: fault === 'timeout' ? 100 : 30_000 }),
    outcome: 'completed',
    errorCode: '-',
    check: ({ fault: { telemetry, logged } }) => {
      expect(backend.calls).toBeGreaterThan(0);
      const failed = telemetry.find((event) => event.type === 'CompactionFailed');
      expect(failed?.type === 'CompactionFailed' && failed.error.code).toBe(code);
      expect(telemetry.some((event) => event.type === 'EmergencyPruneApplied')).toBe(true);
      // The failed summary wrote no marker; only the emergency prune's marker is logged.
      const markers = logged.filter((event) => event.type === 'transcript-replaced');
      expect(markers.length).toBeGreaterThan(0);
      expect(
        markers.every(
          (marker) => marker.type === 'transcript-replaced' && marker.tier === 'emergency',
        ),
      ).toBe(true);
    },
  };
}

const cases: readonly MatrixCase[] = [
  {
    fault: '429 with retry-after',
    model: { maxRetries: 2 },
    replies: [fakeFaults.rateLimited({ retryAfterSeconds: 0.05 }), { text: 'After the wait.' }],
    outcome: 'completed',
    errorCode: '-',
    check: ({ fault: { requests } }) => expect(requests).toHaveLength(2),
  },
  {
    fault: '500, then an answer',
    model: { maxRetries: 2 },
    replies: [
      fakeFaults.httpError({
        status: 500,
        errorType: 'server_error',
        message: 'The server had an error while processing your request.',
        headers: { 'retry-after-ms': '20' },
      }),
      { text: 'Recovered.' },
    ],
    outcome: 'completed',
    errorCode: '-',
    check: ({ fault: { requests } }) => expect(requests).toHaveLength(2),
  },
  {
    fault: '500 on every retry',
    model: { maxRetries: 1 },
    replies: [
      fakeFaults.httpError({
        status: 500,
        errorType: 'server_error',
        message: 'The server had an error.',
        headers: { 'retry-after-ms': '20' },
      }),
      fakeFaults.httpError({ status: 500, errorType: 'server_error', message: 'Still down.' }),
    ],
    outcome: 'failed',
    errorCode: 'model_server',
    check: ({ fault: { requests } }) => expect(requests).toHaveLength(2),
  },
  {
    fault: 'timeout (server hangs, timeout 200 ms)',
    model: { timeout: 200 },
    replies: [fakeFaults.hang()],
    outcome: 'failed',
    errorCode: 'model_timeout',
  },
  {
    fault: 'connection reset',
    replies: [fakeFaults.reset()],
    outcome: 'failed',
    errorCode: 'model_network',
  },
  {
    fault: 'malformed JSON body',
    replies: [fakeFaults.malformedJson()],
    outcome: 'failed',
    errorCode: 'model_invalid_response',
  },
  {
    fault: 'truncated SSE stream (response ended)',
    model: { stream: true },
    replies: [fakeFaults.truncatedStream({ how: 'end' })],
    outcome: 'failed',
    errorCode: 'model_network',
  },
  {
    fault: 'truncated SSE stream (socket destroyed)',
    model: { stream: true },
    replies: [fakeFaults.truncatedStream({ how: 'destroy' })],
    outcome: 'failed',
    errorCode: 'model_network',
  },
  {
    fault: '400 context_length_exceeded',
    replies: [fakeFaults.contextOverflow(), { text: 'Fits now.' }],
    outcome: 'completed',
    errorCode: '-',
    check: ({ fault: { telemetry, logged } }) => {
      const started = telemetry.filter((event) => event.type === 'CompactionStarted');
      expect(started.map((event) => event.type === 'CompactionStarted' && event.reason)).toEqual([
        'overflow',
      ]);
      expect(logged.some((event) => event.type === 'transcript-replaced')).toBe(true);
    },
  },
  {
    fault: '413 payload too large',
    replies: [fakeFaults.payloadTooLarge(), { text: 'Smaller now.' }],
    outcome: 'completed',
    errorCode: '-',
    check: ({ fault: { telemetry } }) => {
      const started = telemetry.find((event) => event.type === 'CompactionStarted');
      expect(started?.type === 'CompactionStarted' && started.reason).toBe('payload_too_large');
    },
  },
  summarizerCase('error', 'summary_failed'),
  summarizerCase('timeout', 'summary_timeout'),
  summarizerCase('empty', 'summary_rejected'),
  summarizerCase('sectionless', 'summary_rejected'),
  {
    fault: 'tool throws',
    tools: [explode],
    replies: [{ toolCalls: [{ name: 'explode', arguments: {} }] }, { text: 'The tool failed.' }],
    outcome: 'completed',
    errorCode: '-',
    check: ({ fault: { appended } }) => {
      const result = appended.find((item) => item.kind === 'toolResult');
      expect(result).toMatchObject({ isError: true });
      expect(result?.kind === 'toolResult' && result.content).toContain('the disk is on fire');
    },
  },
  {
    fault: 'tool hangs past its timeout (100 ms)',
    tools: [stall],
    toolTimeoutMs: 100,
    replies: [{ toolCalls: [{ name: 'stall', arguments: {} }] }, { text: 'It timed out.' }],
    outcome: 'completed',
    errorCode: '-',
    check: ({ fault: { appended } }) => {
      const result = appended.find((item) => item.kind === 'toolResult');
      expect(result).toMatchObject({ isError: true });
      expect(result?.kind === 'toolResult' && result.content).toMatch(/timed out after 100 ms/);
    },
  },
  {
    fault: 'tool returns 10 MB',
    tools: [flood],
    replies: [{ toolCalls: [{ name: 'flood', arguments: {} }] }, { text: 'That was a lot.' }],
    outcome: 'completed',
    errorCode: '-',
    check: ({ fault: { appended, requests } }) => {
      // The structural tier clipped the output to its head and tail: the model never got 10 MB.
      const requestBodies = requests.map((request) => request.rawBody);
      expect(requestBodies.length).toBe(2);
      expect(Math.max(...requestBodies.map((body) => body.length))).toBeLessThan(1_000_000);
      expect(requestBodies[1]).toMatch(
        /line of build output 0123456789 ok[^\]]*\[… \d+ lines, \d+ characters cut by compaction\./,
      );
      // The whole output is in the log all the same.
      const result = appended.find((item) => item.kind === 'toolResult');
      expect(result?.kind === 'toolResult' && result.content.length).toBeGreaterThanOrEqual(
        tenMegabytes,
      );
    },
  },
  {
    fault: 'store write fails (disk full) while logging tool results',
    replies: [{ toolCalls: [{ id: 'call_disk', name: 'lookup', arguments: { word: 'disk' } }] }],
    store: (inner) => {
      // Only the first write of the results fails; the run's own closing write then succeeds.
      let failed = false;
      return new FailingStore({
        inner,
        shouldFail: (events) => {
          const results = events.some(
            (event) =>
              event.type === 'items-appended' &&
              event.items.some((item) => item.kind === 'toolResult' && item.callId === 'call_disk'),
          );
          if (failed || !results) return false;
          failed = true;
          return true;
        },
      });
    },
    outcome: 'failed',
    errorCode: 'io',
    check: ({ fault: { appended } }) => {
      // The lost results were never written; the run's end answered the open call instead.
      const results = appended.filter((item) => item.kind === 'toolResult');
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ callId: 'call_disk', isError: true });
    },
  },
  {
    fault: 'abort mid-inference',
    replies: [fakeFaults.hang()],
    // Abort once the request has reached the server, so the hang is what gets cut off.
    abort: { when: 'request-received' },
    outcome: 'aborted',
    errorCode: 'aborted',
    check: ({ fault: { appended } }) => expect(appended.map((item) => item.kind)).toEqual(['user']),
  },
  {
    fault: 'abort mid-tool',
    tools: [waitForAbort],
    replies: [
      {
        toolCalls: [
          { name: 'lookup', arguments: { word: 'fast' } },
          { name: 'wait_for_abort', arguments: {} },
        ],
      },
    ],
    abort: { when: 'tool-started', toolName: 'wait_for_abort', delayMs: 20 },
    outcome: 'aborted',
    errorCode: 'aborted',
    check: ({ fault: { appended } }) => {
      const results = appended.filter((item) => item.kind === 'toolResult');
      expect(results).toHaveLength(2);
      // The call that finished before the abort keeps its real result; the open one is answered.
      expect(
        results.map((item) => item.kind === 'toolResult' && [item.toolName, item.isError]),
      ).toEqual(
        expect.arrayContaining([
          ['lookup', false],
          ['wait_for_abort', true],
        ]),
      );
    },
  },
];

describe('fault matrix: createAgentLoop over openAIChatModel, the fake server and FileSessionStore', () => {
  for (const matrixCase of cases) {
    it(`${matrixCase.fault}: ends ${matrixCase.outcome} (${matrixCase.errorCode}), log valid, nothing lost`, async () => {
      const result = await runFault(matrixCase);
      rows.push(result.row);
      expect(result.fault.state).toBe('idle');
      expect(result.row.outcome, result.fault.finished.error?.message).toBe(matrixCase.outcome);
      expect(result.row.errorCode).toBe(matrixCase.errorCode);
      if (matrixCase.outcome !== 'completed') {
        // A typed loopkeeper error: a known name and code, never the catch-all `unexpected`.
        expect(result.fault.finished.error?.code).not.toBe('unexpected');
        expect(result.fault.finished.error?.name).toMatch(/Error$/);
      }
      expect(result.row.logValid).toBe(true);
      expect(result.row.itemsKept).toBe(true);
      expect(result.row.nextTurn).toBe('completed');
      matrixCase.check?.(result);
    });
  }

  it('SIGKILL of a child process mid-run: resume on the same directory and session id, then one more turn', async () => {
    const result = await runCrashScenario(tokens);
    rows.push(result.row);
    const finishedRuns = result.reports.filter((report) => report.type === 'run-finished');
    expect(finishedRuns.length).toBeGreaterThanOrEqual(3);
    expect(finishedRuns.every((report) => report.outcome === 'completed')).toBe(true);
    // The kill came during a tool call of the next run: its run-started is in the log.
    const started = result.beforeResume.filter((event) => event.type === 'run-started');
    expect(started.length).toBe(finishedRuns.length + 1);
    expect(result.runsAtResume).toBe(finishedRuns.length + 1);
    // The killed run is continued in place, under its own run id, and completes.
    expect(result.continued).toMatchObject({ outcome: 'completed' });
    const killedRun = started.at(-1);
    expect(result.continued?.runId).toBe(killedRun?.type === 'run-started' && killedRun.runId);
    expect(result.row.outcome).toBe('completed');
    expect(result.row.errorCode).toBe('-');
    expect(result.resumed.outcome).toBe('completed');
    expect(result.row.logValid).toBe(true);
    expect(result.row.itemsKept).toBe(true);
    // The call the kill interrupted (started, no result) is not run again: it is not idempotent.
    const reopened = result.afterResume.slice(result.beforeResume.length);
    const answers = reopened.flatMap((event) =>
      event.type === 'items-appended' ? event.items : [],
    );
    expect(
      answers.some(
        (item) =>
          item.kind === 'toolResult' &&
          item.isError &&
          /may or may not have taken effect/.test(item.content),
      ),
    ).toBe(true);
  }, 60_000);
});

/**
 * Found by the fuzz: the write that closes a run can fail too. The log then holds an open run,
 * exactly as after a crash; the live loop writes the closing events before its next run.
 */
describe('a failed closing write', () => {
  it('a run whose closing write fails (disk full) still leaves the session usable', async () => {
    const result = await runFault({
      fault: 'store write fails while an aborted run answers its open calls',
      tools: [waitForAbort],
      replies: [{ toolCalls: [{ name: 'wait_for_abort', arguments: {} }] }],
      abort: { when: 'tool-started', delayMs: 20 },
      store: (inner) => {
        let failed = false;
        return new FailingStore({
          inner,
          shouldFail: (events) => {
            const closing = events.some((event) => event.type === 'run-finished');
            if (failed || !closing || !events.some((event) => event.type === 'items-appended')) {
              return false;
            }
            failed = true;
            return true;
          },
        });
      },
    });
    expect(result.fault.state).toBe('idle');
    expect(result.fault.finished.outcome).toBe('aborted');
    expect(result.row.nextTurn).toBe('completed');
    expect(result.next.historyProblems).toEqual([]);
    expect(result.row.itemsKept).toBe(true);
  });
});
