import {
  type CompactionBackend,
  contextWindowTrigger,
  createCompactor,
  defineTool,
  type Item,
  ModelError,
  type SessionStore,
  tokenBudgetTrigger,
  validateTranscript,
} from 'loopkeeper';
import { SUMMARY_SECTIONS } from 'loopkeeper/compaction';
import {
  type FakeReply,
  fakeFaults,
  type ScriptedAnswer,
  type ScriptedFailure,
  ScriptedModel,
} from 'loopkeeper/testing';
import { FailingStore } from '../faults/failing-store.js';
import type { ScenarioContext, ScenarioOptions, ScenarioRun } from '../support/scenario-driver.js';
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

/** Where the planned answers come from: the fake server over HTTP, or a `ScriptedModel`. */
export type FuzzTransport = 'http' | 'in-process';

/**
 * The scenario a session plan describes: the model takes the planned answers in order, the
 * `work` tool and the summarizer follow the plan, aborts are sent when the plan says so, and
 * the planned appends fail. Counts summarizer calls into `totals`.
 */
export function planScenario({
  plan,
  totals,
  transport,
}: {
  readonly plan: SessionPlan;
  readonly totals: FuzzTotals;
  readonly transport: FuzzTransport;
}): Omit<ScenarioOptions, 'tokens'> {
  const answers = [...plan.answers];
  const summaries = [...plan.summaries];
  let appends = 0;
  const failing = new Set(plan.failingAppends);
  return {
    steps: plan.messages.map((message) => ({ send: message })),
    ...(transport === 'http'
      ? { reply: (_request, context) => replyFor(nextAnswer(answers), context) }
      : {
          inProcessModel: (context) =>
            new ScriptedModel({
              tokens: context.tokens,
              script: () => scriptedAnswerFor(nextAnswer(answers), context),
            }),
        }),
    tools: (context) => [workTool(context)],
    compactor: (context) => {
      const backend: CompactionBackend = {
        name: 'planned',
        maxInputTokens: 50_000,
        summarize: async ({ signal }) => {
          totals.steps += 1;
          return summaryFor(summaries.shift() ?? 'ok', signal, context);
        },
      };
      return createCompactor({
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
      });
    },
    wrapStore: (inner: SessionStore) =>
      new FailingStore({
        inner,
        shouldFail: (events) => {
          appends += 1;
          // A failed closing write leaves the run open in the log until the next run writes the
          // closing events (test/faults covers it); the per-run log checks assume a closed run.
          if (events.some((event) => event.type === 'run-finished')) return false;
          return failing.has(appends);
        },
      }),
    toolTimeoutMs: 5,
    maxStepsPerRun: 4,
    maxConsecutiveCompactions: plan.maxConsecutiveCompactions,
    reopen: true,
  };
}

function workTool(context: ScenarioContext) {
  return defineTool({
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
          context.abortSoon();
          return untilAborted(signal);
      }
    },
  });
}

/** The next planned answer; once none is left, a short text. */
function nextAnswer(answers: PlannedAnswer[]): PlannedAnswer {
  return answers.shift() ?? { kind: 'text', words: 3 };
}

/** A planned text or tool-call answer: the same plain data for the fake server and a `ScriptedModel`. */
function plainAnswer(planned: Extract<PlannedAnswer, { kind: 'text' | 'tools' }>) {
  if (planned.kind === 'text') return { text: `Answer: ${'lorem '.repeat(planned.words)}` };
  return {
    toolCalls: planned.calls.map((call) => ({
      name: call.tool,
      arguments: call.brokenArguments ? '{"mode": ' : { mode: call.mode },
    })),
  };
}

/** A planned answer as the fake server sends it. */
function replyFor(planned: PlannedAnswer, context: ScenarioContext): FakeReply {
  switch (planned.kind) {
    case 'text':
    case 'tools':
      return plainAnswer(planned);
    case 'overflow':
      return fakeFaults.contextOverflow({ maxTokens: 4_096 });
    case 'too_large':
      return fakeFaults.payloadTooLarge();
    case 'server-error':
      return fakeFaults.serverError();
    case 'abort':
      context.abortSoon();
      return fakeFaults.hang();
  }
}

/** A planned answer as a `ScriptedModel` gives it: faults as the `ModelError` the SDK adapter throws. */
function scriptedAnswerFor(
  planned: PlannedAnswer,
  context: ScenarioContext,
): ScriptedAnswer | ScriptedFailure {
  switch (planned.kind) {
    case 'text':
    case 'tools':
      return plainAnswer(planned);
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
      context.abortSoon();
      return { text: 'never sent', delayMs: Number.POSITIVE_INFINITY };
  }
}

async function summaryFor(
  planned: PlannedSummary,
  signal: AbortSignal,
  context: ScenarioContext,
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
      context.abortSoon();
      return untilAborted(signal);
  }
}

function same(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

/**
 * Every invariant a driven session broke (empty when none): each request valid when the model
 * received it, the actor idle when a run finished, only typed errors, the log valid and replaying
 * to the live session after every run, at most cap + 1 compaction states between two
 * inferences, and a loop reopened from the log seeing the same session. Adds to `totals`.
 */
export function sessionViolations({
  run,
  cap,
  totals,
}: {
  readonly run: ScenarioRun;
  readonly cap: number;
  readonly totals: FuzzTotals;
}): string[] {
  const violations: string[] = [];
  totals.sessions += 1;
  let request = 0;
  for (const step of run.steps) {
    totals.steps += 1;
    for (const transcript of step.transcripts) {
      request += 1;
      totals.requestsChecked += 1;
      totals.steps += 1;
      const problems = validateRequest(transcript);
      if (problems !== undefined) violations.push(`request ${request} was invalid: ${problems}`);
    }
    if (!step.idleAtFinish) {
      violations.push(`the actor is in ${JSON.stringify(step.state)} after RunFinished`);
    }
    const { finished } = step;
    totals.runs += 1;
    totals.outcomes[finished.outcome] = (totals.outcomes[finished.outcome] ?? 0) + 1;
    if (finished.error !== null) {
      totals.errors[finished.error.code] = (totals.errors[finished.error.code] ?? 0) + 1;
    }
    if (finished.error?.code === 'unexpected') {
      violations.push(`run ended with an untyped error: ${finished.error.message}`);
    }
    if (step.historyProblems.length > 0) {
      violations.push(
        `effective history invalid after a run: ${JSON.stringify(step.historyProblems)}`,
      );
    }
    if (!step.matchesLive) violations.push('the log does not replay to the live session');
  }
  violations.push(...compactionCapViolations(run, cap, totals));
  if (!same(run.reopened?.items, run.liveItems)) {
    violations.push('a loop reopened from the log has a different history');
  }
  const started = run.log.filter((event) => event.type === 'run-started').length;
  if (run.reopened?.runs !== started) {
    violations.push(`reopened loop counts ${run.reopened?.runs} runs, the log ${started}`);
  }
  return violations;
}

function validateRequest(transcript: readonly Item[]): string | undefined {
  const problems = validateTranscript(transcript);
  return problems.length === 0 ? undefined : JSON.stringify(problems);
}

/**
 * Counts tool calls and compactions, and checks that between two inferences the loop enters
 * `compacting` or `emergencyPruning` at most cap + 1 times, on the real actor's telemetry.
 */
function compactionCapViolations(run: ScenarioRun, cap: number, totals: FuzzTotals): string[] {
  const violations: string[] = [];
  let entries = 0;
  for (const event of run.telemetry) {
    if (event.type === 'InferenceStarted' || event.type === 'RunStarted') entries = 0;
    if (event.type === 'ToolCallStarted') totals.steps += 1;
    const compacting = event.type === 'CompactionStarted';
    const pruning = event.type === 'MutationStarted' && event.mutator === 'emergencyPrune';
    if (compacting) totals.compactions += 1;
    if (!compacting && !pruning) continue;
    entries += 1;
    if (entries > cap + 1) {
      violations.push(`${entries} compaction states without an inference (cap ${cap})`);
    }
  }
  return violations;
}
