import {
  createAgentLoop,
  createCompactor,
  MemorySessionStore,
  runTurn,
  type SessionEvent,
  tokenBudgetTrigger,
} from 'loopkeeper';
import type { NewSessionEvent } from 'loopkeeper/log';
import { ScriptedModel } from 'loopkeeper/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from './support/cluster.js';
import { restateServerBinary } from './support/restate-server.js';

const binary = restateServerBinary();
if ('missing' in binary) console.warn(`Skipping the Restate tests: ${binary.missing}`);

const KiB = 1024;
// Low limits, so a test reaches them with small values; the defaults are 4 MiB and 16 MiB.
const limits = { maxEntryBytes: 64 * KiB, maxSessionBytes: 512 * KiB };
const plan = (steps: readonly unknown[]) => JSON.stringify({ plan: steps });

/** Resolves with `promise`'s value or error, or 'timeout' when neither came within `ms`. */
function settleWithin<T>(promise: PromiseLike<T>, ms: number) {
  return Promise.race([
    Promise.resolve(promise).then(
      (value) => ({ value }),
      (error: unknown) => ({ error: String(error) }),
    ),
    new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms)),
  ]);
}

describe.skipIf('missing' in binary)('createLoopObject limits on a real restate-server', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({ workers: 1, limits });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  async function logOf(sessionId: string): Promise<SessionEvent[]> {
    return [...(await cluster.session(sessionId).log({ limit: 1000 })).events];
  }

  describe('send', () => {
    it('refuses a message over maxEntryBytes with a terminal 413 before any run', async () => {
      const session = cluster.session('message-too-large');
      await session.send({ content: 'before' });
      const before = await logOf('message-too-large');
      await expect(session.send({ content: 'x'.repeat(70 * KiB) })).rejects.toThrow(
        /value_too_large.*maxEntryBytes/,
      );
      expect(await logOf('message-too-large')).toEqual(before);
      expect(await session.send({ content: 'after' })).toMatchObject({ outcome: 'completed' });
    });

    it('stops a session at maxSessionBytes (session_full); every handler still answers', async () => {
      const session = cluster.session('fills-up');
      // Each turn logs the 50 KiB message and its 50 KiB echo.
      const message = (turn: number) => `${turn} ${'y'.repeat(50 * KiB)}`;
      let completed = 0;
      let refusal = '';
      for (let turn = 0; turn < 8 && refusal === ''; turn += 1) {
        const outcome = await settleWithin(session.send({ content: message(turn) }), 10_000);
        if (outcome === 'timeout') throw new Error(`turn ${turn} did not settle`);
        if ('error' in outcome) refusal = outcome.error;
        else completed += 1;
      }
      expect(refusal).toMatch(/413|session_full/);
      expect(refusal).toMatch(/is full: its log holds .* of 512 KiB \(maxSessionBytes\)/);
      // About 100 KiB a turn: five fit under 512 KiB, the sixth does not.
      expect(completed).toBe(5);
      const events = await logOf('fills-up');
      const bytes = events.reduce(
        (sum, event) => sum + Buffer.byteLength(JSON.stringify(event)),
        0,
      );
      expect(bytes).toBeLessThanOrEqual(limits.maxSessionBytes);
      expect(events.filter((event) => event.type === 'run-finished')).toHaveLength(completed);
      expect(await settleWithin(session.log({ limit: 1 }), 5_000)).not.toBe('timeout');
      expect(await settleWithin(session.history(), 5_000)).not.toBe('timeout');
      expect(await settleWithin(session.abort(), 5_000)).not.toBe('timeout');
      expect(await settleWithin(session.result({}), 5_000)).not.toBe('timeout');
      // Admitted (the message is small), but the tool's 60 KiB output would pass the limit: the
      // run fails typed, its open call gets a synthetic result, and the log stays valid.
      const failed = await session.send({
        content: plan([{ tools: [{ label: 'overflow', outputBytes: 60 * KiB }] }, { text: 'no' }]),
      });
      expect(failed).toMatchObject({ outcome: 'failed', error: { code: 'session_full' } });
      const after = await logOf('fills-up');
      const started = after.filter((event) => event.type === 'run-started').length;
      expect(after.filter((event) => event.type === 'run-finished')).toHaveLength(started);
      const history = await session.history();
      expect(history.at(-1)).toMatchObject({ kind: 'toolResult', isError: true });
      expect(await session.send({ content: 'small' })).toMatchObject({ outcome: 'completed' });
    });
  });

  describe('state layout', () => {
    it('reads and extends a session stored in the first layout (events and lastSeq, no head)', async () => {
      const source = cluster.session('layout-source');
      await source.send({ content: 'one' });
      await source.send({ content: plan([{ tools: [{ label: 'old' }] }, { text: 'two' }]) });
      const events = await logOf('layout-source');
      // The first layout, written as its code wrote it: event:<seq> and lastSeq, nothing else.
      const bytes = (value: unknown) => [...Buffer.from(JSON.stringify(value))];
      const oldState: Record<string, number[]> = { lastSeq: bytes(events.length) };
      for (const event of events) oldState[`event:${event.seq}`] = bytes(event);
      const response = await fetch(`${cluster.server.adminUrl}/services/loopkeeper/state`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ object_key: 'layout-old', new_state: oldState }),
      });
      expect(response.ok).toBe(true);
      const legacy = cluster.session('layout-old');
      // The admin API applies the state asynchronously.
      for (let tries = 0; (await legacy.log({ limit: 1 })).events.length === 0; tries += 1) {
        if (tries > 100) throw new Error('the old-layout state never appeared');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await logOf('layout-old')).toEqual(events);
      expect(await legacy.history()).toEqual(await source.history());
      const next = await legacy.send({ content: 'three' });
      expect(next).toMatchObject({ outcome: 'completed', text: 'echo: three' });
      const extended = await logOf('layout-old');
      expect(extended.slice(0, events.length)).toEqual(events);
      expect(extended.map((event) => event.seq)).toEqual(extended.map((_, index) => index + 1));
      expect((await legacy.history()).map((item) => item.kind)).toEqual([
        ...(await source.history()).map((item) => item.kind),
        'user',
        'assistant',
      ]);
    });

    it('an append sent again at the same seq returns the stored events; different events are refused', async () => {
      const probe = cluster.storeProbe('append-again');
      const user = (id: string) => ({ kind: 'user' as const, id, content: `message ${id}` });
      const events = [{ type: 'items-appended' as const, items: [user('u1')] }];
      const first = await probe.append({ events, expectedSeq: 0 });
      expect(first).toMatchObject({ events: [{ seq: 1, type: 'items-appended' }] });
      // Sent again (a writer that lost the answer): the stored events, same seq and clock.
      expect(await probe.append({ events, expectedSeq: 0 })).toEqual(first);
      const other = [{ type: 'items-appended' as const, items: [user('u2')] }];
      expect(await probe.append({ events: other, expectedSeq: 0 })).toEqual({
        code: 'concurrency',
      });
      expect(await probe.append({ events: other, expectedSeq: 1 })).toMatchObject({
        events: [{ seq: 2 }],
      });
    });
  });

  describe('reads per send', () => {
    it('opening a compacted session reads the same few values at 250 and at 1,250 events', async () => {
      // A real loop with compaction writes the log; the probe object stores it event for event.
      const store = new MemorySessionStore();
      const loop = createAgentLoop({
        model: new ScriptedModel({
          script: ({ transcript }) => ({ text: `answer ${transcript.length}` }),
        }),
        compactor: createCompactor({ trigger: tokenBudgetTrigger({ maxTokens: 1_500 }) }),
        store,
        sessionId: 'grown',
      });
      loop.start();
      const probe = cluster.storeProbe('grown');
      let copied = 0;
      const markerCount = async (): Promise<number> => {
        let count = 0;
        for await (const event of store.read('grown')) {
          if (event.type === 'transcript-replaced') count += 1;
        }
        return count;
      };
      // Both reads are measured right after a compaction, so they compare the same point of the
      // compaction cycle (how many events follow the last marker depends on where in it a
      // fixed seq falls, not on the length of the log).
      const copyTo = async (target: number): Promise<void> => {
        while (loop.session.lastSeq < target)
          await runTurn(loop, `message ${loop.session.lastSeq}`);
        const markersBefore = await markerCount();
        while ((await markerCount()) === markersBefore)
          await runTurn(loop, `message ${loop.session.lastSeq}`);
        const events: SessionEvent[] = [];
        for await (const event of store.read('grown', { fromSeq: copied + 1 })) events.push(event);
        for (let start = 0; start < events.length; start += 200) {
          const batch = events
            .slice(start, start + 200)
            .map(({ v: _v, seq: _seq, at: _at, ...event }) => event);
          const answer = await probe.append({
            events: batch as NewSessionEvent[],
            expectedSeq: copied,
          });
          if (!('events' in answer)) throw new Error(`append refused: ${answer.code}`);
          copied += batch.length;
        }
      };

      await copyTo(250);
      const small = await probe.openCost();
      await copyTo(1_250);
      const large = await probe.openCost();
      loop.stop();

      // The same projection as the loop that wrote the log.
      expect(large.lastSeq).toBe(loop.session.lastSeq);
      expect(large.items).toEqual(loop.session.items.map((item) => item.id));
      const markers = [];
      for await (const event of store.read('grown')) {
        if (event.type === 'transcript-replaced') markers.push(event.seq);
      }
      expect(markers.length).toBeGreaterThan(3);
      // Five times the log, about the same reads: the marker, the items it keeps, the events since.
      expect(large.reads).toBeLessThan(small.reads * 2);
      expect(large.bytes).toBeLessThan(small.bytes * 2);
      expect(large.reads).toBeLessThan(large.lastSeq / 3);
    });
  });

  describe('one large tool output', () => {
    it('17 MB is refused before the journal: one run of the tool, an isError result, the turn completes', async () => {
      const sessionId = 'large-tool-output';
      const started = Date.now();
      const outcome = await settleWithin(
        cluster.session(sessionId).send({
          content: plan([
            { tools: [{ label: 'huge', outputBytes: 17_000_000 }] },
            { text: 'after the huge output' },
          ]),
        }),
        20_000,
      );
      if (outcome === 'timeout' || 'error' in outcome) {
        throw new Error(`the turn did not complete: ${JSON.stringify(outcome)}`);
      }
      expect(outcome.value).toMatchObject({ outcome: 'completed', text: 'after the huge output' });
      const result = outcome.value.itemsAdded.find((item) => item.kind === 'toolResult');
      expect(result).toMatchObject({ isError: true });
      expect(JSON.stringify(result)).toMatch(/returned 16\.2 MiB, over the 64 KiB limit/);
      const runs = cluster
        .effects()
        .filter((line) => line[0] === 'tool' && line[1] === 'start' && line[3] === 'huge');
      expect(runs).toHaveLength(1);
      expect(Date.now() - started).toBeLessThan(15_000);
    });

    it('an output just under maxEntryBytes reaches the log whole', async () => {
      const result = await cluster.session('tool-output-fits').send({
        content: plan([{ tools: [{ label: 'fits', outputBytes: 60 * KiB }] }, { text: 'done' }]),
      });
      const toolResult = result.itemsAdded.find((item) => item.kind === 'toolResult');
      expect(toolResult).toMatchObject({ isError: false });
      expect(toolResult?.kind === 'toolResult' && toolResult.content).toHaveLength(60 * KiB);
    });
  });
});
