/**
 * Reads a `--cpu-prof` profile of `bench/profile-actor.ts --spans FILE` and prints where the
 * timed steps went, in sampled microseconds per step: the functions by self time and by
 * inclusive time. The slowest tenth of the steps (compactions, garbage-collection pauses) is
 * left out, so the figures describe a typical step.
 *
 *   node --import tsx bench/profile-spans.ts PROFILE.cpuprofile SPANS.json [rows]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const [profileFile, spansFile, rowsText = '40'] = process.argv.slice(2);
if (profileFile === undefined || spansFile === undefined) {
  throw new Error('usage: profile-spans.ts PROFILE.cpuprofile SPANS.json [rows]');
}
const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as Profile;
const spans = (JSON.parse(readFileSync(spansFile, 'utf8')) as [number, number][]).sort(
  (left, right) => left[0] - right[0],
);
const durations = spans.map(([start, end]) => end - start).sort((left, right) => left - right);
const cut = durations[Math.floor(durations.length * 0.9)] ?? Number.POSITIVE_INFINITY;
const typical = spans.filter(([start, end]) => end - start <= cut);

const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parents = new Map<number, number>();
for (const node of profile.nodes)
  for (const child of node.children ?? []) parents.set(child, node.id);
const nameOf = (id: number) => {
  const frame = nodes.get(id)?.callFrame;
  const where = (frame?.url ?? '')
    .replace(/^file:\/\//, '')
    .replace(/.*\/(node_modules|bench|src|machines)\//, '$1/');
  return `${frame?.functionName || '(anonymous)'} ${where}`;
};

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let time = profile.startTime;
let next = 0;
for (const [index, sample] of profile.samples.entries()) {
  time += profile.timeDeltas[index] ?? 0;
  while (next < typical.length && (typical[next]?.[1] ?? 0) < time) next += 1;
  const span = typical[next];
  if (span === undefined || time < span[0]) continue;
  // A sample stands for the time until the next one.
  const weight = profile.timeDeltas[index + 1] ?? 0;
  self.set(nameOf(sample), (self.get(nameOf(sample)) ?? 0) + weight);
  const seen = new Set<string>();
  for (let id: number | undefined = sample; id !== undefined; id = parents.get(id)) {
    const name = nameOf(id);
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + weight);
  }
}

const rows = Number(rowsText);
const print = (title: string, table: Map<string, number>) => {
  console.log(title);
  for (const [name, total] of [...table].sort((left, right) => right[1] - left[1]).slice(0, rows)) {
    console.log(`${(total / typical.length).toFixed(1).padStart(8)}  ${name}`);
  }
};
console.log(
  `${typical.length} typical steps of ${spans.length} (median ${durations[durations.length >> 1]?.toFixed(0)} µs); sampled µs per step:`,
);
print('self', self);
print('inclusive', inclusive);
