import {
  type AgentLoopActor,
  type CompactionBackend,
  contextWindowTrigger,
  createAgentLoop,
  createCompactor,
  defineTool,
  effectiveHistory,
  MemorySessionStore,
  ModelError,
  openAgentLoop,
  runTurn,
  tokenBudgetTrigger,
  validateTranscript,
} from 'loopkeeper';
import { SUMMARY_SECTIONS } from 'loopkeeper/compaction';
import { type ScriptedAnswer, type ScriptedFailure, ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { FailingStore } from '../faults/failing-store.js';
import { readSession } from '../support/loop-harness.js';
import type { PlannedAnswer, PlannedSummary, SessionPlan, ToolMode } from './fuzz-plan.js';

/** Running totals over every session the fuzz drives. */
export interface FuzzTotals {
  sessions: number;
  runs: number;
  /** User messages, model requests, tool calls and summarizer calls. */
  steps: number;
  /** Model requests whose transcript was validated when the model received it. */
  requestsChecked: number;
  compactions: number;
  readonly outcomes: Record<string, number>;
  /** Error codes of the runs that did not complete. */
  readonly errors: Record<string, number>;
}

export function emptyTotals(): FuzzTotals {
  return {
    sessions: 0,
    runs: 0,
    steps: 0,
    requestsChecked: 0,
    compactions: 0,
    outcomes: {},
    errors: {},
  };
}

const validSummary = SUMMARY_SECTIONS.map((section) => `## ${section}\nNoted.`).join('\n\n');

/** Resolves never; rejects with the signal's reason once it aborts. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

function same(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

/**
 * Drives a real loop actor through one session plan: the `ScriptedModel`'s script function
 * takes the planned answers, tools and the summarizer follow the plan, and aborts are sent when
 * the plan says so. Returns every invariant the session broke (empty when none).
 */
export async function runSessionPlan({
  plan,
  tokens,
  totals,
}: {
  plan: SessionPlan;
  tokens: TokenCounter;
  totals: FuzzTotals;
}): Promise<string[]> {
  const violations: string[] = [];
  const answers = [...plan.answers];
  const summaries = [...plan.summaries];
  // Assigned right below; the plan's aborts need the actor the fakes belong to.
  let loop: AgentLoopActor | undefined;
  // Sent on the next tick, as a host would; a session already over has nothing to abort.
  const abortSoon = () =>
    setTimeout(() => {
      if (loop?.getSnapshot().status === 'active') loop.send({ type: 'abort' });
    }, 0);

  const model = new ScriptedModel({
    tokens,
    script: (request) => {
      totals.requestsChecked += 1;
      totals.steps += 1;
      const problems = validateTranscript(request.transcript);
      if (problems.length > 0) {
        violations.push(
          `request ${model.requests.length} was invalid: ${JSON.stringify(problems)}`,
        );
      }
      return answerFor(answers.shift() ?? { kind: 'text', words: 3 }, abortSoon);
    },
  });

  const work = defineTool({
    name: 'work',
    description: 'Does planned work.',
    parameters: { type: 'object', properties: { mode: { type: 'string' } }, required: ['mode'] },
    execute: ({ mode }: { mode: ToolMode }, { signal }) => {
      switch (mode) {
        case 'ok':
          return 'done';
        case 'big':
          return 'a line of tool output\n'.repeat(60);
        case 'throw':
          throw new Error('planned tool failure');
        case 'slow':
          // Ignores its signal: only the tool timeout ends it.
          return new Promise(() => undefined);
        case 'abort':
          abortSoon();
          return untilAborted(signal);
      }
    },
  });

  const backend: CompactionBackend = {
    name: 'planned',
    maxInputTokens: 50_000,
    summarize: async ({ signal }) => {
      totals.steps += 1;
      return summaryFor(summaries.shift() ?? 'ok', signal, abortSoon);
    },
  };

  const store = new MemorySessionStore();
  let appends = 0;
  const failing = new Set(plan.failingAppends);
  const flakyStore = new FailingStore({
    inner: store,
    shouldFail: (events) => {
      appends += 1;
      // A failed closing write leaves the run open in the log until the next run writes the
      // closing events (test/faults covers it); the per-run log checks below assume a closed run.
      if (events.some((event) => event.type === 'run-finished')) return false;
      return failing.has(appends);
    },
  });
  const live = createAgentLoop({
    model,
    tools: [work],
    compactor: createCompactor({
      // A line of 700 tokens: the whole limit, or under a window of 1,400 or 2,500.
      trigger:
        plan.window === null
          ? tokenBudgetTrigger({ maxTokens: 700, targetRatio: 0.5 })
          : contextWindowTrigger({
              window: plan.window,
              percent: (700 / plan.window) * 100,
              targetRatio: 0.5,
            }),
      backend,
      structural: { pruneToolResults: { protectRecentTokens: 100, minSavingsTokens: 20 } },
      summary: { keepRecentTokens: 150 },
      summaryTimeoutMs: 5,
    }),
    store: flakyStore,
    tokens,
    toolTimeoutMs: 5,
    maxStepsPerRun: 4,
    maxConsecutiveCompactions: plan.maxConsecutiveCompactions,
  });
  loop = live;
  observeTelemetry(live, plan.maxConsecutiveCompactions, violations, totals);
  live.start();
  totals.sessions += 1;

  for (const message of plan.messages) {
    totals.steps += 1;
    const finished = await runTurn(live, message);
    const snapshot = live.getSnapshot();
    if (!snapshot.matches('idle') || snapshot.context.queue.length > 0) {
      violations.push(`the actor is in ${JSON.stringify(snapshot.value)} after RunFinished`);
    }
    totals.runs += 1;
    totals.outcomes[finished.outcome] = (totals.outcomes[finished.outcome] ?? 0) + 1;
    if (finished.error !== null) {
      totals.errors[finished.error.code] = (totals.errors[finished.error.code] ?? 0) + 1;
    }
    if (finished.error?.code === 'unexpected') {
      violations.push(`run ended with an untyped error: ${finished.error.message}`);
    }
    const events = await readSession(store, live.session.sessionId);
    const history = effectiveHistory(events);
    const problems = validateTranscript(history);
    if (problems.length > 0) {
      violations.push(`effective history invalid after a run: ${JSON.stringify(problems)}`);
    }
    if (!same(history, live.session.items)) {
      violations.push('the log does not replay to the live session');
    }
  }
  live.stop();

  // A second loop rebuilt from the log alone sees the same session.
  const reopened = await openAgentLoop({
    model: new ScriptedModel(),
    store,
    sessionId: live.session.sessionId,
    tokens,
  });
  if (!same(reopened.session.items, live.session.items)) {
    violations.push('a loop reopened from the log has a different history');
  }
  const started = (await readSession(store, live.session.sessionId)).filter(
    (event) => event.type === 'run-started',
  ).length;
  if (reopened.session.runs !== started) {
    violations.push(`reopened loop counts ${reopened.session.runs} runs, the log ${started}`);
  }
  return violations;
}

function answerFor(
  planned: PlannedAnswer,
  abortSoon: () => void,
): ScriptedAnswer | ScriptedFailure {
  switch (planned.kind) {
    case 'text':
      return { text: `Answer: ${'lorem '.repeat(planned.words)}` };
    case 'tools':
      return {
        toolCalls: planned.calls.map((call) => ({
          name: call.tool,
          arguments: call.brokenArguments ? '{"mode": ' : { mode: call.mode },
        })),
      };
    case 'overflow':
      return {
        error: new ModelError("This model's maximum context length is 4096 tokens.", {
          kind: 'context_overflow',
          status: 400,
        }),
      };
    case 'too_large':
      return {
        error: new ModelError('Request too large.', { kind: 'payload_too_large', status: 413 }),
      };
    case 'server-error':
      return { error: new ModelError('The server had an error.', { kind: 'server', status: 500 }) };
    case 'abort':
      abortSoon();
      return { text: 'never sent', delayMs: Number.POSITIVE_INFINITY };
  }
}

async function summaryFor(
  planned: PlannedSummary,
  signal: AbortSignal,
  abortSoon: () => void,
): Promise<{ text: string }> {
  switch (planned) {
    case 'ok':
      return { text: validSummary };
    case 'error':
      throw new Error('planned summarizer failure');
    case 'empty':
      return { text: '' };
    case 'sectionless':
      return { text: 'A summary with no sections at all.' };
    case 'timeout':
      // Ignores its signal: only the compactor's timeout ends it.
      return new Promise(() => undefined);
    case 'abort':
      abortSoon();
      return untilAborted(signal);
  }
}

/**
 * Counts tool calls and compactions, and checks that between two inferences the loop enters
 * `compacting` or `emergencyPruning` at most cap + 1 times, on the real actor's telemetry.
 */
function observeTelemetry(
  loop: AgentLoopActor,
  cap: number,
  violations: string[],
  totals: FuzzTotals,
): void {
  let entries = 0;
  loop.on('*', (event) => {
    if (event.type === 'InferenceStarted' || event.type === 'RunStarted') entries = 0;
    if (event.type === 'ToolCallStarted') totals.steps += 1;
    const compacting = event.type === 'CompactionStarted';
    const pruning = event.type === 'MutationStarted' && event.mutator === 'emergencyPrune';
    if (compacting) totals.compactions += 1;
    if (!compacting && !pruning) return;
    entries += 1;
    if (entries > cap + 1) {
      violations.push(`${entries} compaction states without an inference (cap ${cap})`);
    }
  });
}
