/**
 * The real actor alone over the lean 2,000-call session, as the per-step benchmark runs it (a
 * warm-up of 300 steps, then the whole session): the median step in the benchmark's 16 windows
 * of 40 steps, per run and over runs, beside the floor of the same steps. Not part of
 * `npm run bench`; a tool for finding where a step's time goes.
 *
 *   node --import tsx bench/profile-actor.ts [--runs 3] [--steps N] [--no-floor]
 *
 * With `--spans FILE` it writes the last run's steps as [start, end] in microseconds of the
 * clock `--cpu-prof` stamps its samples with, so `bench/profile-spans.ts` can read a profile of
 * the timed steps only (without the session's build, the scripted model or the floor):
 *
 *   node --import tsx --cpu-prof --cpu-prof-dir /tmp/prof --cpu-prof-interval 100 \
 *     bench/profile-actor.ts --runs 1 --no-floor --spans /tmp/spans.json
 *   node --import tsx bench/profile-spans.ts /tmp/prof/<the largest>.cpuprofile /tmp/spans.json
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createTokenCounter } from '../src/index.js';
import { buildLongSession } from './suite/long-session.js';
import { type ActorStep, runActorSession } from './suite/loopkeeper-actor.js';
import { median } from './suite/stats.js';

const WINDOW = 200_000;
const CHART_POINTS = 16;
const WINDOW_STEPS = 40;

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}
const runs = Number(option('--runs') ?? 3);
const maxSteps = Number(option('--steps') ?? Number.POSITIVE_INFINITY);
const floor = !process.argv.includes('--no-floor');
const spansFile = option('--spans');

const session = buildLongSession({
  counter: await createTokenCounter(),
  toolCalls: 2_000,
  lean: true,
});
await runActorSession({ items: session.items, window: WINDOW, steps: 300 });

const windows = Array.from({ length: CHART_POINTS }, (_, index) => {
  const first = Math.round((index * (session.steps.length - WINDOW_STEPS)) / (CHART_POINTS - 1));
  return { first, last: first + WINDOW_STEPS - 1 };
});
const callsAt = (index: number) => session.steps[index]?.toolCallsSoFar ?? 0;
const byWindow = (steps: readonly ActorStep[], value: (step: ActorStep) => number) =>
  windows.map((window) =>
    median(
      steps
        .filter(
          (step) =>
            step.toolCallsSoFar >= callsAt(window.first) &&
            step.toolCallsSoFar <= callsAt(window.last),
        )
        .map(value),
    ),
  );

const actorMedians: number[][] = [];
const floorMedians: number[][] = [];
const tokenizeMedians: number[][] = [];
for (let run = 0; run < runs; run += 1) {
  const cpuBefore = process.cpuUsage();
  const actor = await runActorSession({
    items: session.items,
    window: WINDOW,
    steps: maxSteps,
    floor,
  });
  const cpu = process.cpuUsage(cpuBefore);
  actorMedians.push(byWindow(actor.steps, (step) => step.milliseconds));
  floorMedians.push(byWindow(actor.steps, (step) => step.floorTokenize + step.floorSerialize));
  tokenizeMedians.push(byWindow(actor.steps, (step) => step.floorTokenize));
  const all = actor.steps.map((step) => step.milliseconds);
  console.log(
    `run ${run + 1}: ${actor.steps.length} steps, median ${(median(all) * 1000).toFixed(0)} µs; process CPU ${((cpu.user + cpu.system) / actor.steps.length).toFixed(0)} µs a step (everything: scripted model, floor, compaction)`,
  );
  if (spansFile !== undefined) {
    // performance.now() counts from the time origin on the monotonic clock the profiler uses.
    const origin = Number(process.hrtime.bigint() / 1000n) - performance.now() * 1000;
    const spans = actor.steps.map((step) => [
      origin + (step.endedAt - step.milliseconds) * 1000,
      origin + step.endedAt * 1000,
    ]);
    writeFileSync(spansFile, JSON.stringify(spans));
  }
}

const µs = (milliseconds: number) => `${(milliseconds * 1000).toFixed(0)} µs`.padStart(8);
const across = (medians: number[][], index: number) =>
  median(medians.map((values) => values[index] ?? Number.NaN));
console.log('steps         actor median, each run / over runs      floor  (tokenize)');
for (const [index, window] of windows.entries()) {
  const each = actorMedians.map((values) => µs(values[index] ?? Number.NaN)).join(' ');
  console.log(
    `${`${window.first + 1}–${window.last + 1}`.padEnd(12)} ${each} /${µs(across(actorMedians, index))}   ${µs(across(floorMedians, index))} (${µs(across(tokenizeMedians, index)).trim()})`,
  );
}
