/**
 * Tries loopkeeper settings on the cost-against-retention replays without the peers:
 * `npx tsx bench/suite/cost-retention-sweep.ts '[{"percent": 60, "targetRatio": 0.4}]'` prints,
 * per setting, the billed tokens under the four price models and what each request kept,
 * measured exactly as section 6 measures them. Sizes are shares of each replay's target, so one
 * setting means the same on every transcript, except `cap`, a share of the window (new tool
 * outputs capped with the compactor's `toolOutputLimit`; `false` turns the default cap off);
 * `--per` adds a line per transcript. Unset options take the defaults.
 */
import type { Compactor } from '../../src/compaction/index.js';
import { CONTEXT_WINDOW_DEFAULTS } from '../../src/compaction/triggers/context-window-trigger.js';
import { contextWindowTrigger, createCompactor, extractiveSummarizer } from '../../src/index.js';
import { createTokenCounter } from '../../src/tokens/create-token-counter.js';
import { loadTranscriptFixtures } from '../../test/support/transcripts.js';
import {
  type Bill,
  bill,
  loadReplays,
  type Replay,
  replayLoop,
  requestRetention,
} from './cost-retention.js';
import { averageRetention, type StepRetention } from './retention.js';

/** One setting; every size is a share of the replay's target. */
interface Setting {
  readonly percent?: number;
  readonly targetRatio?: number;
  readonly protectRecent?: number;
  readonly minSavings?: number;
  /** A share of the target, or false to leave large outputs whole. */
  readonly clip?: number | false;
  readonly summaryCap?: number;
  readonly keepRecent?: number;
  /** New tool outputs capped at this share of the window (`toolOutputLimit`), or false for none. */
  readonly cap?: number | false;
}

function compactorFor(replay: Replay, setting: Setting): Compactor {
  const {
    percent = CONTEXT_WINDOW_DEFAULTS.percent,
    targetRatio = CONTEXT_WINDOW_DEFAULTS.targetRatio,
  } = setting;
  const target = Math.floor(Math.floor((replay.window * percent) / 100) * targetRatio);
  const share = (value: number) => Math.max(1, Math.round(target * value));
  return createCompactor({
    trigger: contextWindowTrigger({
      window: replay.window,
      outputReserve: 0,
      percent,
      targetRatio,
    }),
    backend: extractiveSummarizer(),
    ...(setting.cap === undefined
      ? {}
      : {
          toolOutputLimit:
            setting.cap === false
              ? false
              : { maxTokens: Math.max(1, Math.round(replay.window * setting.cap)) },
        }),
    structural: {
      pruneToolResults: {
        ...(setting.protectRecent === undefined
          ? {}
          : { protectRecentTokens: Math.round(target * setting.protectRecent) }),
        ...(setting.minSavings === undefined
          ? {}
          : { minSavingsTokens: Math.round(target * setting.minSavings) }),
      },
      ...(setting.clip === undefined
        ? {}
        : { clipToolResults: setting.clip === false ? false : { maxTokens: share(setting.clip) } }),
    },
    summary: {
      ...(setting.summaryCap === undefined ? {} : { maxSummaryTokens: share(setting.summaryCap) }),
      ...(setting.keepRecent === undefined
        ? {}
        : { keepRecentTokens: Math.round(target * setting.keepRecent) }),
    },
  });
}

const settings: Setting[] = JSON.parse(process.argv[2] ?? '[{}]');
const perTranscript = process.argv.includes('--per');
const counter = await createTokenCounter();
const fixtures = loadTranscriptFixtures();
const replays = await loadReplays({ counter, fixtures });
const format = (value: number) => Math.round(value).toLocaleString('en');
const percentOf = (value: number) => `${(value * 100).toFixed(1)}%`;

for (const setting of settings) {
  const total: Bill = { prompt: 0, cached: 0, billed: [], overWindow: 0, breaks: 0 };
  const steps: StepRetention[] = [];
  const lines: string[] = [];
  for (const [index, replay] of replays.entries()) {
    const { requests } = await replayLoop({
      messages: fixtures[index]?.messages ?? [],
      counter,
      compactor: compactorFor(replay, setting),
    });
    const one: Bill = { prompt: 0, cached: 0, billed: [], overWindow: 0, breaks: 0 };
    bill({
      replay,
      requests,
      counter,
      toolTokens: counter.countText(JSON.stringify(replay.tools)),
      into: one,
    });
    total.prompt += one.prompt;
    total.cached += one.cached;
    total.breaks += one.breaks;
    total.overWindow += one.overWindow;
    one.billed.forEach((value, position) => {
      total.billed[position] = (total.billed[position] ?? 0) + value;
    });
    steps.push(...requestRetention(replay, requests));
    lines.push(
      `  ${replay.name}: billed ${one.billed.map(format).join(' / ')}, ${one.breaks} cache breaks`,
    );
  }
  const kept = averageRetention(steps);
  console.log(
    `${JSON.stringify(setting)}: billed ${total.billed.map(format).join(' / ')}; kept ${percentOf(kept.overall)} (goal ${percentOf(kept.goal)}, paths ${percentOf(kept.paths)}, error lines ${percentOf(kept.errorLines)}, identifiers ${percentOf(kept.identifiers)}; output lines, not in kept, ${percentOf(kept.outputLines)}); prompt ${format(total.prompt)}, cached ${format(total.cached)}, ${total.breaks} cache breaks, ${total.overWindow} over the window`,
  );
  if (perTranscript) console.log(lines.join('\n'));
}
