import type { InspectionEvent, Observer } from 'xstate';
import type { SessionEvent } from '../../log/events.js';
import { FileSessionStore } from '../../log/file-store.js';
import { createAgentLoop } from '../../runtime/create-agent-loop.js';
import { runTurn } from '../../runtime/run-turn.js';
import { createTelemetryHub } from '../../runtime/telemetry-hub.js';
import { buildReplayPlan } from '../../testing/replay-plan.js';
import { createReplayTools } from '../../testing/replay-tools.js';
import { ScriptedModel } from '../../testing/scripted-model.js';
import { createTokenCounter } from '../../tokens/create-token-counter.js';
import { type SessionStats, summarizeSession } from '../session-stats.js';
import { createDemoCompaction } from './demo-compaction.js';
import type { Recording } from './load-recordings.js';
import { replayFailure } from './replay-failure.js';

/** What the demo shows while it runs. */
export interface DemoProgress {
  readonly step: number;
  readonly turn: number;
  readonly turns: number;
  readonly effectiveTokens: number;
  readonly window: number;
  readonly compactions: number;
  readonly emergencyPrunes: number;
}

export interface DemoResult {
  readonly sessionId: string;
  readonly logPath: string;
  readonly window: number;
  readonly maxTokens: number;
  readonly targetTokens: number;
  readonly recordings: number;
  readonly turns: number;
  readonly wallTimeMs: number;
  readonly stats: SessionStats;
}

export interface RunDemoOptions {
  readonly recordings: readonly Recording[];
  readonly directory: string;
  readonly window: number;
  /** Model requests one replayed turn may make (the loop's `maxStepsPerRun`). */
  readonly maxSteps: number;
  readonly inspect?: Observer<InspectionEvent>;
  readonly onStart?: (facts: {
    turns: number;
    answers: number;
    maxTokens: number;
    targetTokens: number;
    logPath: string;
  }) => void;
  readonly onProgress?: (progress: DemoProgress) => void;
}

/** Told to the demo's loop; the recordings' own system prompts are not replayed. */
export const DEMO_INSTRUCTIONS =
  'You are an agent whose earlier sessions are being replayed. Continue the work as recorded.';

/**
 * Replays recordings as one long session through the real loop: a scripted model gives the
 * recorded answers, replay tools give the recorded outputs, and the compactor keeps the
 * effective history inside a small window, all on the file store. The summary is computed
 * from the session log afterwards, so it reports what was recorded, not what was observed.
 */
export async function runDemo({
  recordings,
  directory,
  window,
  maxSteps,
  inspect,
  onStart,
  onProgress,
}: RunDemoOptions): Promise<DemoResult> {
  const started = performance.now();
  const plan = buildReplayPlan({ recordings });
  const tokens = await createTokenCounter();
  const { compactor, budget } = createDemoCompaction({ window });
  const store = new FileSessionStore({ directory });
  const model = new ScriptedModel({ turns: plan.answers, tokens, model: 'recorded-replay' });
  const loop = createAgentLoop({
    model,
    tools: createReplayTools({ toolNames: plan.toolNames, outputs: plan.outputs }),
    instructions: DEMO_INSTRUCTIONS,
    compactor,
    store,
    tokens,
    maxStepsPerRun: maxSteps,
    ...(inspect === undefined ? {} : { inspect }),
  });
  const logPath = `${store.directory}/${loop.session.sessionId}.jsonl`;
  onStart?.({
    turns: plan.turns.length,
    answers: plan.answers.length,
    maxTokens: budget.maxTokens,
    targetTokens: budget.targetTokens,
    logPath,
  });

  const progress = {
    step: 0,
    turn: 0,
    turns: plan.turns.length,
    effectiveTokens: 0,
    window,
    compactions: 0,
    emergencyPrunes: 0,
  };
  const report = () => onProgress?.({ ...progress });
  const hub = createTelemetryHub();
  hub.attach(loop);
  hub.on('InferenceStarted', (event) => {
    progress.step += 1;
    progress.effectiveTokens = event.estimatedPromptTokens;
    report();
  });
  hub.on('CompactionFinished', (event) => {
    if (event.strategies.length > 0) progress.compactions += 1;
    progress.effectiveTokens = event.tokensAfter;
    report();
  });
  hub.on('EmergencyPruneApplied', (event) => {
    progress.emergencyPrunes += 1;
    progress.effectiveTokens = event.tokensAfter;
    report();
  });

  loop.start();
  const events: SessionEvent[] = [];
  try {
    for (const turn of plan.turns) {
      progress.turn += 1;
      const finished = await runTurn(loop, turn.content);
      if (finished.outcome !== 'completed') {
        throw replayFailure({
          finished,
          turn: progress.turn,
          recording: turn.recording,
          window,
          maxSteps,
        });
      }
    }
    for await (const event of store.read(loop.session.sessionId)) events.push(event);
  } finally {
    hub.detachAll();
    loop.stop();
    await store.close();
  }
  return {
    sessionId: loop.session.sessionId,
    logPath,
    window,
    maxTokens: budget.maxTokens,
    targetTokens: budget.targetTokens,
    recordings: recordings.length,
    turns: plan.turns.length,
    wallTimeMs: performance.now() - started,
    stats: summarizeSession({ events, tokens }),
  };
}
