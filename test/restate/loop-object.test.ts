import type { SessionEvent, TurnResult } from 'loopkeeper';
import type { TelemetryRecord } from 'loopkeeper/restate';
import { abortLoopSession } from 'loopkeeper/restate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, eventually, startCluster } from './support/cluster.js';
import { restateServerBinary } from './support/restate-server.js';

const binary = restateServerBinary();
if ('missing' in binary) console.warn(`Skipping the Restate tests: ${binary.missing}`);

const plan = (steps: readonly unknown[]) => JSON.stringify({ plan: steps });

describe.skipIf('missing' in binary)('createLoopObject on a real restate-server', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({ workers: 2 });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  /** The whole stored log of a session, through the `log` handler's pages. */
  async function logOf(sessionId: string): Promise<SessionEvent[]> {
    const events: SessionEvent[] = [];
    let fromSeq = 1;
    for (;;) {
      const page = await cluster.session(sessionId).log({ fromSeq, limit: 100 });
      events.push(...page.events);
      if (page.events.length === 0) return events;
      fromSeq = page.nextSeq;
    }
  }

  async function telemetryOf(sessionId: string): Promise<TelemetryRecord[]> {
    const page = await cluster.session(sessionId).telemetry({ fromSeq: 1, limit: 1000 });
    return [...page.events];
  }

  /** Seqs 1..n without a gap, item ids never repeated, one start and one finish per run. */
  function expectWholeLog(events: readonly SessionEvent[]): void {
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const ids = events.flatMap((event) =>
      event.type === 'items-appended' ? event.items.map((item) => item.id) : [],
    );
    expect(new Set(ids).size).toBe(ids.length);
    const started = events.filter((event) => event.type === 'run-started').map((e) => e.runId);
    const finished = events.filter((event) => event.type === 'run-finished').map((e) => e.runId);
    expect(new Set(started).size).toBe(started.length);
    expect(finished).toEqual(started);
  }

  /** Each telemetry event once: no two with the same identity, seqs 1..n. */
  function expectTelemetryOnce(records: readonly TelemetryRecord[], runId: string): void {
    expect(records.map((record) => record.seq)).toEqual(records.map((_, index) => index + 1));
    const ofRun = records.map((record) => record.event).filter((event) => event.runId === runId);
    const identities = ofRun
      // Deltas and progress reports repeat their step and call by nature.
      .filter(
        (event) =>
          !['InferenceDelta', 'ReasoningDelta', 'ToolCallDelta', 'ToolCallProgress'].includes(
            event.type,
          ),
      )
      .map((event) => {
        const fields = event as unknown as Record<string, unknown>;
        return `${event.type}|${fields['step'] ?? ''}|${fields['callId'] ?? ''}`;
      });
    expect(new Set(identities).size).toBe(identities.length);
    expect(ofRun.filter((event) => event.type === 'RunStarted')).toHaveLength(1);
    expect(ofRun.filter((event) => event.type === 'RunFinished')).toHaveLength(1);
  }

  describe('send, history, result and telemetry', () => {
    it('serves one session from two worker processes, turn after turn', async () => {
      const session = cluster.session('two-workers');
      for (let turn = 0; turn < 6; turn += 1) {
        const result = await session.send({ content: `turn ${turn}` });
        expect(result).toMatchObject({ outcome: 'completed', text: `echo: turn ${turn}` });
      }
      const history = await session.history();
      expect(history.map((item) => item.kind)).toEqual(
        Array.from({ length: 6 }, () => ['user', 'assistant']).flat(),
      );
      expect(history.filter((item) => item.kind === 'user').map((item) => item.content)).toEqual(
        Array.from({ length: 6 }, (_, turn) => `turn ${turn}`),
      );
      // Round robin per invocation attempt: both workers served this object.
      for (const worker of cluster.workers) {
        expect(cluster.balancer.counts.get(worker.url) ?? 0).toBeGreaterThan(0);
      }
      const last = await session.result({});
      expect(last?.text).toBe('echo: turn 5');
      const events = await logOf('two-workers');
      expectWholeLog(events);
    });

    it('sending a runId again returns the recorded result and starts no second run', async () => {
      const session = cluster.session('same-run-id');
      const first = await session.send({ content: 'once', runId: 'same-run-id:run-1' });
      const again = await session.send({ content: 'once', runId: 'same-run-id:run-1' });
      expect(again).toEqual(first);
      expect((await session.history()).length).toBe(2);
      expect(await session.result({ runId: 'same-run-id:run-1' })).toEqual(first);
    });

    it('refuses the same runId with other content (409 run_id_reused) and logs nothing', async () => {
      const session = cluster.session('same-run-id-other');
      const first = await session.send({ content: 'first', runId: 'same-run-id-other:run-1' });
      const refused = await Promise.resolve(
        session.send({ content: 'second', runId: 'same-run-id-other:run-1' }),
      ).catch((error: unknown) => error);
      expect(refused).toMatchObject({ status: 409 });
      expect(String(refused)).toMatch(/run_id_reused/);
      expect(await session.history()).toEqual(first.itemsAdded);
      expect(await session.result({ runId: 'same-run-id-other:run-1' })).toEqual(first);
    });

    it('refuses bad input with a terminal 400 and no run', async () => {
      const session = cluster.session('bad-input');
      await expect(session.send({ content: 'x', runId: 7 } as never)).rejects.toThrow(/runId/);
      await expect(session.telemetry({ limit: 0 })).rejects.toThrow(/limit/);
      expect(await session.history()).toEqual([]);
    });
  });

  describe('a worker SIGKILLed mid-run', () => {
    it('during a slow model call: another worker finishes, the earlier tool ran once', async () => {
      const sessionId = 'killed-in-model';
      const pending = cluster.session(sessionId).send({
        content: plan([{ tools: [{ label: 'before' }] }, { delayMs: 1_500, text: 'finished' }]),
      });
      // The second answer (step 1) is the slow one: kill whichever worker is inside it.
      const start = await eventually(() =>
        cluster
          .effects()
          .find((line) => line[0] === 'model' && line[1] === 'start' && line[3] === '1'),
      );
      const victim = cluster.workers.find((worker) => String(worker.pid) === start[4]);
      if (victim === undefined) throw new Error(`no worker has pid ${start[4]}`);
      await cluster.replace(victim);
      const result: TurnResult = await pending;

      // The one turn-result shape runTurn gives, JSON-safe: absent values are null.
      expect(result).toMatchObject({
        type: 'RunFinished',
        outcome: 'completed',
        text: 'finished',
        error: null,
      });
      const effects = cluster.effects();
      const runKey = start[2];
      const toolDone = effects.filter((line) => line[0] === 'tool' && line[1] === 'done');
      expect(toolDone.filter((line) => line[3] === 'before')).toHaveLength(1);
      const slowStarts = effects.filter(
        (line) =>
          line[0] === 'model' && line[1] === 'start' && line[2] === runKey && line[3] === '1',
      );
      // The interrupted call ran again on another worker; the finished first one did not.
      expect(slowStarts.length).toBeGreaterThanOrEqual(2);
      expect(slowStarts.at(-1)?.[4]).not.toBe(start[4]);
      const firstStarts = effects.filter(
        (line) =>
          line[0] === 'model' && line[1] === 'start' && line[2] === runKey && line[3] === '0',
      );
      expect(firstStarts).toHaveLength(1);
      expectWholeLog(await logOf(sessionId));
      expectTelemetryOnce(await telemetryOf(sessionId), result.runId);
    });

    it('during a tool call: the finished parallel tool is not run again, the cut one is applied once', async () => {
      const sessionId = 'killed-in-tool';
      const pending = cluster.session(sessionId).send({
        content: plan([
          { tools: [{ label: 'quick' }, { label: 'slow', delayMs: 1_500 }] },
          { text: 'after tools' },
        ]),
      });
      const quickDone = await eventually(() =>
        cluster
          .effects()
          .find((line) => line[0] === 'tool' && line[1] === 'done' && line[3] === 'quick'),
      );
      // The journal records a step when it completes: give the quick tool's record time to land.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const victim = cluster.workers.find((worker) => String(worker.pid) === quickDone[4]);
      if (victim === undefined) throw new Error(`no worker has pid ${quickDone[4]}`);
      await cluster.replace(victim);
      const result = await pending;

      expect(result).toMatchObject({ outcome: 'completed', text: 'after tools' });
      const effects = cluster.effects().filter((line) => line[0] === 'tool');
      const quick = effects.filter((line) => line[3] === 'quick');
      expect(quick.map((line) => line[1])).toEqual(['start', 'applied', 'done']);
      const slow = effects.filter((line) => line[3] === 'slow');
      // Started on the killed worker, started again elsewhere with the same idempotency key.
      expect(slow.filter((line) => line[1] === 'start').length).toBeGreaterThanOrEqual(2);
      expect(slow.filter((line) => line[1] === 'done')).toHaveLength(1);
      expect(new Set(slow.map((line) => line[2])).size).toBe(1);
      const results = result.itemsAdded.filter((item) => item.kind === 'toolResult');
      expect(results.map((item) => item.content)).toEqual(['applied quick', 'applied slow']);
      expectWholeLog(await logOf(sessionId));
      expectTelemetryOnce(await telemetryOf(sessionId), result.runId);
    });
  });

  describe('tool approval', () => {
    it('pauses the run in the log, lists the call, refuses a new message, and after approve the tool runs exactly once although the worker is killed after the approval', async () => {
      const sessionId = 'approval-killed';
      const session = cluster.session(sessionId);
      const paused = await session.send({
        content: plan([
          { tools: [{ label: 'deploy', approval: true }] },
          { delayMs: 1_500, text: 'deployed' },
        ]),
      });
      expect(paused).toMatchObject({ outcome: 'awaiting_approval' });
      expect(paused.pending.map((call) => call.toolName)).toEqual(['approved_effect']);
      const [call] = paused.pending;
      if (call === undefined) throw new Error('no pending call');
      expect(await session.pending()).toEqual(paused.pending);
      const toolLines = () =>
        cluster.effects().filter((line) => line[0] === 'tool' && line[2]?.startsWith(sessionId));
      expect(toolLines()).toEqual([]);
      // The wait is in the log: a new message has to wait for the decision.
      await expect(session.send({ content: 'something else' })).rejects.toThrow(/approval/);

      const approving = session.approve({
        decisions: [{ callId: call.callId, approved: true }],
      });
      // Kill the worker inside the slow answer that follows the approved tool.
      // The plan model's call ids are `call_<runKey>_<step>_<index>`.
      const runKey = call.callId.replace(/^call_/, '').replace(/_\d+_\d+$/, '');
      const start = await eventually(() =>
        cluster
          .effects()
          .find(
            (line) =>
              line[0] === 'model' && line[1] === 'start' && line[2] === runKey && line[3] === '1',
          ),
      );
      const victim = cluster.workers.find((worker) => String(worker.pid) === start[4]);
      if (victim === undefined) throw new Error(`no worker has pid ${start[4]}`);
      await cluster.replace(victim);
      const done = await approving;

      expect(done).toMatchObject({ outcome: 'completed', text: 'deployed', pending: [] });
      expect(done.runId).toBe(paused.runId);
      const lines = toolLines();
      expect(lines.filter((line) => line[1] === 'start')).toHaveLength(1);
      expect(lines.filter((line) => line[1] === 'applied')).toHaveLength(1);
      expect(lines.filter((line) => line[1] === 'done')).toHaveLength(1);
      expect(await session.pending()).toEqual([]);
      expect(await session.result({ runId: paused.runId })).toEqual(done);
      const events = await logOf(sessionId);
      expectWholeLog(events);
      const types = events.map((event) => event.type);
      expect(types.indexOf('approval-decided')).toBeLessThan(types.indexOf('tool-calls-started'));
    });

    it('a denial reaches the model, and a decision nobody waits for is refused with a 409', async () => {
      const session = cluster.session('approval-denied');
      const paused = await session.send({
        content: plan([
          { tools: [{ label: 'drop-table', approval: true }] },
          { text: 'understood' },
        ]),
      });
      const [call] = paused.pending;
      if (call === undefined) throw new Error('no pending call');
      const done = await session.approve({
        decisions: [{ callId: call.callId, approved: false, reason: 'not in production' }],
      });
      expect(done).toMatchObject({ outcome: 'completed', text: 'understood' });
      const denial = done.itemsAdded.find((item) => item.kind === 'toolResult');
      expect(denial).toMatchObject({ isError: true });
      expect(denial?.kind === 'toolResult' && denial.content).toContain('not in production');
      expect(
        cluster.effects().filter((line) => line[0] === 'tool' && line[3] === 'drop-table'),
      ).toEqual([]);
      await expect(
        session.approve({ decisions: [{ callId: call.callId, approved: true }] }),
      ).rejects.toThrow(/no run waits for approval/);
    });
  });

  describe('concurrency', () => {
    it('serializes concurrent messages to one session', async () => {
      const sessionId = 'serialized';
      const session = cluster.session(sessionId);
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, index) =>
          session.send({ content: plan([{ delayMs: 150, text: `answer ${index}` }]) }),
        ),
      );
      expect(results.every((result) => result.outcome === 'completed')).toBe(true);
      const runKeys = new Set(
        results.map((result) => result.itemsAdded.find((item) => item.kind === 'user')?.id),
      );
      const calls = cluster
        .effects()
        .filter((line) => line[0] === 'model' && runKeys.has(line[2]))
        .map((line) => line[1]);
      // Never two model calls of this session at once: start, end, start, end, ...
      expect(calls).toEqual(Array.from({ length: 5 }, () => ['start', 'end']).flat());
      const history = await session.history();
      expect(history.map((item) => item.kind)).toEqual(
        Array.from({ length: 5 }, () => ['user', 'assistant']).flat(),
      );
      expectWholeLog(await logOf(sessionId));
    });

    it('runs 50 sessions across two workers', async () => {
      const before = new Map(cluster.balancer.counts);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          cluster.session(`many-${index}`).send({ content: `hello ${index}` }),
        ),
      );
      expect(results.map((result) => result.text)).toEqual(
        Array.from({ length: 50 }, (_, index) => `echo: hello ${index}`),
      );
      for (const worker of cluster.workers) {
        const served =
          (cluster.balancer.counts.get(worker.url) ?? 0) - (before.get(worker.url) ?? 0);
        expect(served).toBeGreaterThan(0);
      }
      const histories = await Promise.all(
        Array.from({ length: 50 }, (_, index) => cluster.session(`many-${index}`).history()),
      );
      expect(histories.every((history) => history.length === 2)).toBe(true);
    });
  });

  describe('abort', () => {
    it('cancels the running send: synthetic tool results, and the session goes on', async () => {
      const sessionId = 'aborted';
      const session = cluster.session(sessionId);
      const pending = session.send({
        content: plan([{ tools: [{ label: 'endless', delayMs: 30_000 }] }, { text: 'never' }]),
      });
      await eventually(() =>
        cluster
          .effects()
          .find((line) => line[0] === 'tool' && line[1] === 'start' && line[3] === 'endless'),
      );
      expect(await session.abort()).toEqual({ aborted: true, invocationId: expect.any(String) });
      const result = await pending;
      expect(result.outcome).toBe('aborted');
      const history = await session.history();
      const toolResult = history.find((item) => item.kind === 'toolResult');
      expect(toolResult).toMatchObject({ isError: true });
      expect(await session.abort()).toEqual({ aborted: false, invocationId: null });
      const next = await session.send({ content: 'still here' });
      expect(next).toMatchObject({ outcome: 'completed', text: 'echo: still here' });
      expectWholeLog(await logOf(sessionId));
    });
  });

  describe('abortLoopSession', () => {
    it('kills a send stuck on a worker that cancellation cannot reach, closes its run, and the session goes on', async () => {
      const sessionId = 'stuck-worker';
      const session = cluster.session(sessionId);
      const pending = Promise.resolve(
        session.send({
          content: plan([{ tools: [{ label: 'stuck', delayMs: 30_000 }] }, { text: 'never' }]),
        }),
      ).catch((error: unknown) => error);
      const start = await eventually(() =>
        cluster
          .effects()
          .find((line) => line[0] === 'tool' && line[1] === 'start' && line[3] === 'stuck'),
      );
      // The worker running the call stops answering, as one stuck in a blocking call would.
      const stuck = cluster.workers.find((worker) => String(worker.pid) === start[4]);
      if (stuck === undefined) throw new Error(`no worker has pid ${start[4]}`);
      stuck.process.kill('SIGSTOP');
      cluster.balancer.setTargets(
        cluster.workers.filter((worker) => worker !== stuck).map((worker) => worker.url),
      );
      try {
        const aborted = await abortLoopSession({
          ingressUrl: cluster.server.ingressUrl,
          adminUrl: cluster.server.adminUrl,
          sessionId,
          graceMs: 1_000,
        });
        expect(aborted).toMatchObject({ outcome: 'killed', closed: expect.any(String) });
        expect(await pending).toBeInstanceOf(Error);
        const events = await logOf(sessionId);
        expectWholeLog(events);
        const finished = events.find((event) => event.type === 'run-finished');
        expect(finished).toMatchObject({ outcome: 'failed', error: { code: 'interrupted' } });
        expect(await session.result({ runId: aborted.closed ?? '' })).toMatchObject({
          outcome: 'failed',
        });
        const history = await session.history();
        expect(history.find((item) => item.kind === 'toolResult')).toMatchObject({
          isError: true,
        });
        expect(await session.send({ content: 'after the kill' })).toMatchObject({
          outcome: 'completed',
          text: 'echo: after the kill',
        });
        expectWholeLog(await logOf(sessionId));
      } finally {
        await cluster.replace(stuck);
      }
    });
  });

  // Last in the file: it restarts the server every other test uses.
  describe('the restate-server SIGKILLed mid-run', () => {
    it('the turn completes once; an idempotent tool runs again under its one key, a non-idempotent one is not run again', async () => {
      const sessionId = 'server-killed';
      const runId = `${sessionId}:run-1`;
      const content = plan([
        { tools: [{ label: 'first', delayMs: 100 }] },
        {
          tools: [
            { label: 'second', delayMs: 600 },
            { label: 'once', delayMs: 600, once: true },
          ],
        },
        { text: 'survived' },
      ]);
      // The client's request dies with the server.
      const pending = Promise.resolve(cluster.session(sessionId).send({ content, runId })).catch(
        () => undefined,
      );
      // Killed while the second step's tools run, after the first one finished.
      const started = (label: string) =>
        cluster
          .effects()
          .find((line) => line[0] === 'tool' && line[1] === 'start' && line[3] === label);
      await eventually(() => (started('second') && started('once') ? true : undefined));
      await cluster.server.crashAndRestart();
      await pending;
      // Sending the same runId waits for the restarted invocation and returns its result.
      const result = await cluster.session(sessionId).send({ content, runId });

      expect(result).toMatchObject({ outcome: 'completed', text: 'survived' });
      const results = result.itemsAdded.filter((item) => item.kind === 'toolResult');
      expect(results.map((item) => item.content)).toEqual([
        'applied first',
        'applied second',
        expect.stringMatching(/may or may not have taken effect.*not run again/),
      ]);
      expect(results[2]).toMatchObject({ isError: true, toolName: 'once_effect' });
      const tool = cluster.effects().filter((line) => line[0] === 'tool');
      for (const label of ['first', 'second']) {
        const lines = tool.filter((line) => line[3] === label);
        // Started once or more (a call cut by the crash runs again), always with one key ...
        expect(new Set(lines.map((line) => line[2])).size).toBe(1);
        // ... so its effect applied exactly once.
        expect(lines.filter((line) => line[1] === 'applied')).toHaveLength(1);
      }
      // The non-idempotent call was cut off by the crash: started once, never again.
      expect(tool.filter((line) => line[3] === 'once' && line[1] === 'start')).toHaveLength(1);
      const events = await logOf(sessionId);
      expectWholeLog(events);
      expect(events.filter((event) => event.type === 'run-started')).toHaveLength(1);
    });
  });
});
