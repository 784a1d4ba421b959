import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { NewSessionEvent, SessionEvent } from '../../src/log/events.js';
import { FileSessionStore } from '../../src/log/file-store.js';
import { MemorySessionStore } from '../../src/log/memory-store.js';
import { createProjection } from '../../src/log/projection.js';
import { buildReplacementView } from '../../src/log/replacement-view.js';
import type { SessionStore } from '../../src/log/store.js';
import {
  type AgentLoopActor,
  createAgentLoop,
  openAgentLoop,
} from '../../src/runtime/create-agent-loop.js';
import { ScriptedModel } from '../../src/testing/scripted-model.js';
import type { TokenCounter } from '../../src/tokens/types.js';
import { COMPACTION_SUMMARY_NAME, type Item } from '../../src/transcript/types.js';
import { validateTranscript } from '../../src/transcript/validate-transcript.js';
import { nextEvent } from '../../test/support/loop-harness.js';
import type { LongSession } from './long-session.js';
import { markdownTable, type ReportSection } from './markdown.js';
import { heapAfterGc } from './memory.js';
import type { BenchScale } from './options.js';
import { copyItems } from './session-copies.js';
import { formatBytes, formatCount, formatMilliseconds } from './stats.js';

/** Consecutive steps of the long session, from `firstStep`, holding at least `items` items. */
function stepWindow(session: LongSession, firstStep: number, items: number): Item[] {
  const steps = session.steps;
  const first = steps[firstStep % steps.length];
  if (first === undefined) throw new Error('bench: the session has no steps');
  let end = first.end;
  for (
    let index = firstStep % steps.length;
    index < steps.length && end - first.start < items;
    index += 1
  ) {
    end = (steps[index] as { end: number }).end;
  }
  return session.items.slice(first.start, end);
}

function scriptedModel(counter: TokenCounter): ScriptedModel {
  return new ScriptedModel({ turns: [{ text: 'Noted; carrying on.' }], tokens: counter });
}

async function manyActors({
  session,
  counter,
  scale,
}: {
  session: LongSession;
  counter: TokenCounter;
  scale: BenchScale;
}): Promise<string[][]> {
  const store = new MemorySessionStore();
  const empty = heapAfterGc();
  let itemsWritten = 0;
  for (let actor = 0; actor < scale.actors; actor += 1) {
    const items = copyItems(stepWindow(session, actor * 7, scale.itemsPerActor), `a${actor}`);
    itemsWritten += items.length;
    await store.append(`actor-${actor}`, [{ type: 'items-appended', items }]);
  }
  const filled = heapAfterGc();

  const started = performance.now();
  const loops: AgentLoopActor[] = [];
  for (let actor = 0; actor < scale.actors; actor += 1) {
    const loop = createAgentLoop({
      model: scriptedModel(counter),
      store,
      sessionId: `actor-${actor}`,
      tokens: counter,
    });
    loop.start();
    loops.push(loop);
  }
  await Promise.all(loops.map((loop) => loop.session.open()));
  const spawnMs = performance.now() - started;
  const spawned = heapAfterGc();

  const turnStarted = performance.now();
  await Promise.all(
    loops.map((loop) => {
      const finished = nextEvent(loop, 'RunFinished');
      loop.send({ type: 'user.message', content: 'Please go on with the task.' });
      return finished;
    }),
  );
  const turnMs = performance.now() - turnStarted;
  const answered = heapAfterGc();
  const outcomes = loops.map((loop) => loop.session.items.length);
  for (const loop of loops) loop.stop();
  const perActor = (bytes: number) => formatBytes(bytes / scale.actors);
  return [
    [
      `${formatCount(scale.actors)} actors, ${formatCount(itemsWritten / scale.actors)} items each (memory store)`,
      `spawn + open all: ${formatMilliseconds(spawnMs)} (${formatMilliseconds(spawnMs / scale.actors)} each)`,
      `one turn on every actor at once: ${formatMilliseconds(turnMs)}`,
      `log data ${perActor(filled - empty)} per session; actor + projection ${perActor(spawned - filled)} per actor; after one turn ${perActor(answered - filled)} per actor`,
      `${formatCount(Math.min(...outcomes))}–${formatCount(Math.max(...outcomes))} items per history after the turn`,
    ],
  ];
}

/** Writes a session of `scale.fileItems` items with a compaction marker every `fileMarkerEvery`. */
async function writeLongFileSession({
  store,
  sessionId,
  session,
  scale,
}: {
  store: SessionStore;
  sessionId: string;
  session: LongSession;
  scale: BenchScale;
}): Promise<{ events: number; items: number; markers: number }> {
  const projection = createProjection();
  let pending: NewSessionEvent[] = [];
  let items = 0;
  let sinceMarker = 0;
  let markers = 0;
  let cycle = 0;
  const flush = async () => {
    if (pending.length === 0) return;
    const written = await store.append(sessionId, pending, { expectedSeq: projection.lastSeq });
    for (const event of written) projection.apply(event);
    pending = [];
  };
  const marker = async () => {
    await flush();
    const history = projection.items;
    // Keep the newest steps (whole tool exchanges) after a summary, as a compaction would.
    let keepFrom = history.length;
    while (keepFrom > 0 && history.length - keepFrom < 100) {
      keepFrom -= 1;
      while (keepFrom > 0 && history[keepFrom]?.kind === 'toolResult') keepFrom -= 1;
    }
    const summary: Item = {
      kind: 'context',
      id: `summary-${markers}`,
      name: COMPACTION_SUMMARY_NAME,
      text: `Reference record of the earlier conversation (bench summary ${markers}): ${'the agent looked up reservations, edited files and ran the tests. '.repeat(12)}`,
    };
    const next = [summary, ...history.slice(keepFrom)];
    if (validateTranscript(next).length > 0)
      throw new Error('bench: a marker view breaks the protocol');
    pending.push({
      type: 'transcript-replaced',
      throughSeq: projection.lastSeq,
      view: buildReplacementView({ previous: history, next }),
      reason: 'threshold',
      tier: 'summary',
      strategies: ['bench'],
      tokensBefore: 0,
      tokensAfter: 0,
    });
    await flush();
    markers += 1;
    sinceMarker = 0;
  };
  while (items < scale.fileItems) {
    for (const step of session.steps) {
      if (items >= scale.fileItems) break;
      const stepItems = copyItems(session.items.slice(step.start, step.end), `c${cycle}`);
      pending.push({ type: 'items-appended', items: stepItems });
      items += stepItems.length;
      sinceMarker += stepItems.length;
      if (pending.length >= 500) await flush();
      if (sinceMarker >= scale.fileMarkerEvery) await marker();
    }
    cycle += 1;
  }
  await marker();
  // A few steps after the last marker, as a live session would have.
  for (const step of session.steps.slice(0, 10)) {
    pending.push({
      type: 'items-appended',
      items: copyItems(session.items.slice(step.start, step.end), 'tail'),
    });
  }
  await flush();
  return { events: projection.lastSeq, items, markers };
}

async function longFileSession({
  session,
  counter,
  scale,
}: {
  session: LongSession;
  counter: TokenCounter;
  scale: BenchScale;
}): Promise<string[][]> {
  const directory = await mkdtemp(join(tmpdir(), 'loopkeeper-bench-'));
  const sessionId = 'long-session';
  try {
    const writer = new FileSessionStore({ directory });
    const written = await writeLongFileSession({ store: writer, sessionId, session, scale });
    await writer.close();
    const bytes = (await stat(join(directory, `${sessionId}.jsonl`))).size;

    const store = new FileSessionStore({ directory });
    const before = heapAfterGc();
    const openStarted = performance.now();
    const loop = await openAgentLoop({
      model: scriptedModel(counter),
      store,
      sessionId,
      tokens: counter,
    });
    const openMs = performance.now() - openStarted;
    const held = heapAfterGc() - before;
    const effective = loop.session.items.length;
    const effectiveTokens = counter.count(loop.session.items);
    loop.start();
    const resumeStarted = performance.now();
    const finished = nextEvent(loop, 'RunFinished');
    loop.send({ type: 'user.message', content: 'Where were we?' });
    const outcome = await finished;
    const resumeMs = performance.now() - resumeStarted;
    loop.stop();
    await store.close();

    // For contrast: what holding the whole log would cost.
    const reader = new FileSessionStore({ directory });
    const beforeLog = heapAfterGc();
    const all: SessionEvent[] = [];
    for await (const event of reader.read(sessionId)) all.push(event);
    const logHeld = heapAfterGc() - beforeLog;
    await reader.close();
    return [
      [
        `${formatCount(written.items)}-item session (file store, ${formatCount(written.events)} events, ${formatCount(written.markers)} compaction markers, ${formatBytes(bytes)})`,
        `open (\`openAgentLoop\`): ${formatMilliseconds(openMs)}`,
        `resume, first turn to \`RunFinished\` (${outcome.outcome}): ${formatMilliseconds(resumeMs)}`,
        `held after open: ${held > 0 ? formatBytes(held) : `none measurable (the heap after open was ${formatBytes(-held)} below the heap before it)`}, against ${formatBytes(logHeld)} to hold the log's ${formatCount(all.length)} events`,
        `effective history ${formatCount(effective)} items, ${formatCount(effectiveTokens)} tokens`,
      ],
    ];
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** Many loop actors in one process, and one very long session resumed from its file. */
export async function scaleBench({
  session,
  counter,
  scale,
}: {
  readonly session: LongSession;
  readonly counter: TokenCounter;
  readonly scale: BenchScale;
}): Promise<ReportSection> {
  const rows = [
    ...(await manyActors({ session, counter, scale })),
    ...(await longFileSession({ session, counter, scale })),
  ];
  return {
    title: '4. Scale',
    intro:
      'loopkeeper only. Actors are `createAgentLoop` with a `ScriptedModel` and one shared token counter, each on its own session of real items, started and opened (log read, projection built); then every actor answers one message at once. The long session is written to a `FileSessionStore` with compaction markers, closed, and opened again by a new store with `openAgentLoop`; memory is the heap after full garbage collections.',
    body: markdownTable({
      header: ['scenario', 'start', 'work', 'memory', 'history'],
      rows,
    }),
    notes: [
      'Opening reads the whole log once and keeps only the effective history: a `transcript-replaced` marker folds everything before it away, so the memory held follows the effective history, not the log.',
      'The first turn after resuming includes the file store opening the log for writing (the lock); it reuses the scan of the read that opened the loop when the file is unchanged since, so the log is read once.',
    ],
  };
}
