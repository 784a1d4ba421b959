/**
 * Session log benchmark: per-append cost of the incremental projection as the history grows
 * (it must stay flat), against recomputing `effectiveHistory` from scratch, and the cost of a
 * durable FileSessionStore append (one write + fsync). Prints markdown tables.
 *
 * Run: npx tsx bench/projection.bench.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { NewSessionEvent, SessionEvent } from '../src/log/events.js';
import { createProjection, effectiveHistory, FileSessionStore } from '../src/log/index.js';
import { user } from '../test/support/items.js';
import { itemsAppended, replacement, stamped } from '../test/support/session-events.js';

const HISTORY_SIZES = [100, 1_000, 10_000, 100_000];
const APPENDS_PER_SAMPLE = 2_000;
const SAMPLES = 7;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

/** A log of `size` single-item appends, then `extra` more to apply while timing. */
function buildLog(size: number, extra: number): SessionEvent[] {
  return stamped(
    Array.from({ length: size + extra }, (_, index) =>
      itemsAppended([user(`item-${index}`, `message number ${index} with some text`)]),
    ),
  );
}

function projectionRows(): string[] {
  const rows: string[] = [];
  for (const size of HISTORY_SIZES) {
    const log = buildLog(size, APPENDS_PER_SAMPLE);
    const head = log.slice(0, size);
    const tail = log.slice(size);
    const appendSamples: number[] = [];
    for (let sample = 0; sample < SAMPLES; sample += 1) {
      const projection = createProjection({ events: head });
      const started = performance.now();
      for (const event of tail) projection.apply(event);
      appendSamples.push(((performance.now() - started) * 1e6) / tail.length);
    }
    const scratchSamples: number[] = [];
    const withOneMore = log.slice(0, size + 1);
    for (let sample = 0; sample < SAMPLES; sample += 1) {
      const started = performance.now();
      effectiveHistory(withOneMore);
      scratchSamples.push((performance.now() - started) * 1e6);
    }
    const replaceSamples: number[] = [];
    const [marker] = stamped(
      [replacement({ throughSeq: size, view: head.map((_, index) => ({ ref: `item-${index}` })) })],
      size,
    );
    for (let sample = 0; sample < SAMPLES; sample += 1) {
      const projection = createProjection({ events: head });
      const started = performance.now();
      projection.apply(marker as SessionEvent);
      replaceSamples.push((performance.now() - started) * 1e6);
    }
    rows.push(
      `| ${size.toLocaleString('en')} | ${formatNs(median(appendSamples))} | ${formatNs(median(scratchSamples))} | ${formatNs(median(replaceSamples))} |`,
    );
  }
  return rows;
}

function formatNs(nanoseconds: number): string {
  if (nanoseconds >= 1e6) return `${(nanoseconds / 1e6).toFixed(2)} ms`;
  if (nanoseconds >= 1e3) return `${(nanoseconds / 1e3).toFixed(1)} µs`;
  return `${nanoseconds.toFixed(0)} ns`;
}

async function fileStoreRows(): Promise<string[]> {
  const directory = await mkdtemp(join(tmpdir(), 'loopkeeper-bench-'));
  const rows: string[] = [];
  try {
    for (const existing of [100, 10_000]) {
      for (const batchSize of [1, 10]) {
        const sessionId = `s${existing}-${batchSize}`;
        const seed = new FileSessionStore({ directory });
        for (let written = 0; written < existing; written += 1_000) {
          const count = Math.min(1_000, existing - written);
          await seed.append(
            sessionId,
            Array.from({ length: count }, (_, index) =>
              itemsAppended([user(`seed-${written + index}`, 'x'.repeat(200))]),
            ),
          );
        }
        await seed.close();

        const store = new FileSessionStore({ directory });
        const openStarted = performance.now();
        await store.openSession(sessionId);
        const openMs = performance.now() - openStarted;
        const batch: NewSessionEvent[] = Array.from({ length: batchSize }, (_, index) =>
          itemsAppended([user(`new-${index}`, 'y'.repeat(200))]),
        );
        const latencies: number[] = [];
        for (let round = 0; round < 200; round += 1) {
          const started = performance.now();
          await store.append(sessionId, batch);
          latencies.push(performance.now() - started);
        }
        await store.close();
        rows.push(
          `| ${existing.toLocaleString('en')} | ${batchSize} | ${median(latencies).toFixed(3)} ms | ${percentile(latencies, 0.95).toFixed(3)} ms | ${openMs.toFixed(1)} ms |`,
        );
      }
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
  return rows;
}

// Warm the JIT first, so the smallest size is not charged for compilation.
createProjection({ events: buildLog(20_000, 0) });
effectiveHistory(buildLog(20_000, 0));

const projection = projectionRows();
const fileStore = await fileStoreRows();

console.log(`## Session projection (Node ${process.version})

Per-append cost of \`SessionProjection.apply\` (one single-item items-appended event), median of
${SAMPLES} samples of ${APPENDS_PER_SAMPLE.toLocaleString('en')} appends; for contrast, one \`effectiveHistory\`
recomputation from scratch, and one \`transcript-replaced\` marker that refs every item.

| items in history | incremental append | effectiveHistory from scratch | replacement (refs all) |
| ---: | ---: | ---: | ---: |
${projection.join('\n')}

## FileSessionStore append (one write + fsync)

200 appends of 200-character user items into a session that already holds the given number of
events; "open" is the first \`openSession\` (lock, full line check, torn-line recovery).

| events already in log | events per batch | median append | p95 append | open |
| ---: | ---: | ---: | ---: | ---: |
${fileStore.join('\n')}
`);
