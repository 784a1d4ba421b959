/**
 * Profiles the real actor alone over the lean 2,000-call session, as the per-step benchmark runs
 * it: a warm-up of the first 300 steps, then the whole session, and the median step time in the
 * benchmark's 16 windows of 40 steps beside the floor of the same steps.
 *
 *   node --import tsx bench/profile-actor.ts [--runs 3] [--steps N] [--no-floor]
 *   node --import tsx --cpu-prof --cpu-prof-dir /tmp/prof bench/profile-actor.ts --runs 1
 */
import { createTokenCounter } from '../src/index.js';
import { buildLongSession } from './suite/long-session.js';
import { runActorSession } from './suite/loopkeeper-actor.js';
import { median } from './suite/stats.js';

const WINDOW = 200_000;
const argument = (name: string, fallback: number) => {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
};
const runs = argument('--runs', 3);
const maxSteps = argument('--steps', Number.POSITIVE_INFINITY);
const floor = !process.argv.includes('--no-floor');

const session = buildLongSession({
  counter: await createTokenCounter(),
  toolCalls: 2_000,
  lean: true,
});
await runActorSession({ items: session.items, window: WINDOW, steps: 300 });

const chartPoints = 16;
const size = 40;
const windows = Array.from({ length: chartPoints }, (_, index) => {
  const first = Math.round((index * (session.steps.length - size)) / (chartPoints - 1));
  return { first, last: first + size - 1 };
});
const callsAt = (index: number) => session.steps[index]?.toolCallsSoFar ?? 0;

const perRun: number[][] = [];
const floors: number[][] = [];
const tokenizeFloors: number[][] = [];
for (let run = 0; run < runs; run += 1) {
  const cpuBefore = process.cpuUsage();
  const actor = await runActorSession({
    items: session.items,
    window: WINDOW,
    steps: maxSteps,
    floor,
  });
  const inWindow = windows.map((window) =>
    actor.steps.filter(
      (step) =>
        step.toolCallsSoFar >= callsAt(window.first) && step.toolCallsSoFar <= callsAt(window.last),
    ),
  );
  perRun.push(inWindow.map((steps) => median(steps.map((step) => step.milliseconds))));
  floors.push(
    inWindow.map((steps) => median(steps.map((step) => step.floorTokenize + step.floorSerialize))),
  );
  tokenizeFloors.push(inWindow.map((steps) => median(steps.map((step) => step.floorTokenize))));
  const cpu = process.cpuUsage(cpuBefore);
  const all = actor.steps.map((step) => step.milliseconds);
  console.log(
    `run ${run + 1}: ${actor.steps.length} steps, median ${(median(all) * 1000).toFixed(0)} µs, total ${all.reduce((a, b) => a + b, 0).toFixed(0)} ms; process CPU ${((cpu.user + cpu.system) / actor.steps.length).toFixed(0)} µs a step (the run's every part: scripted model, floor, compaction)`,
  );
}
const µs = (value: number) => `${(value * 1000).toFixed(0)} µs`.padStart(8);
console.log('steps        actor median (per run)   median of runs   floor   floor: tokenize only');
for (const [index, window] of windows.entries()) {
  const values = perRun.map((medians) => medians[index] ?? Number.NaN);
  console.log(
    `${`${window.first + 1}–${window.last + 1}`.padEnd(12)} ${values.map(µs).join(' ')}   ${µs(median(values))}   ${µs(median(floors.map((medians) => medians[index] ?? Number.NaN)))} ${µs(median(tokenizeFloors.map((medians) => medians[index] ?? Number.NaN)))}`,
  );
}
