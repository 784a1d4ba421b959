import { createAgentLoop, MemorySessionStore, runTurn, validateTranscript } from 'loopkeeper';
import type { RunFinished } from 'loopkeeper/runtime';
import { ScriptedModel } from 'loopkeeper/testing';
import { describe, expect, it } from 'vitest';
import { nextEvent, readSession, sharedTokenCounter, whenIdle } from '../support/loop-harness.js';

const trials = 60;

/** Lets `ticks` rounds of microtasks (and, past 3, macrotasks) run before the abort. */
async function wait(ticks: number): Promise<void> {
  for (let tick = 0; tick < ticks; tick++) {
    if (tick < 3) await Promise.resolve();
    else await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('createAgentLoop abort in the same tick as the message', () => {
  it(`closes every run it logged and never sends an aborted message in an open run (${trials} trials)`, async () => {
    const store = new MemorySessionStore();
    const model = new ScriptedModel({ script: () => ({ text: 'ok' }) });
    const loop = createAgentLoop({
      model,
      store,
      sessionId: 'same-tick',
      tokens: await sharedTokenCounter(),
    });
    loop.start();
    let logged = 0;
    for (let trial = 0; trial < trials; trial++) {
      const finished = nextEvent(loop, 'RunFinished');
      const content = `aborted message ${trial}`;
      const ticks = trial % 6;
      loop.send({ type: 'user.message', content });
      if (ticks === 0) loop.send({ type: 'abort' });
      else {
        await wait(ticks);
        loop.send({ type: 'abort' });
      }
      const aborted: RunFinished = await finished;
      await whenIdle(loop);
      // The host was told "aborted" (the abort may also land after a quick completion).
      expect(['aborted', 'completed']).toContain(aborted.outcome);
      const requestsBefore = model.requests.length;
      const next = await runTurn(loop, `follow-up ${trial}`);
      expect(next.outcome).toBe('completed');

      const events = await readSession(store, 'same-tick');
      const started = events.flatMap((event) =>
        event.type === 'run-started' ? [event.runId] : [],
      );
      const closed = new Map(
        events.flatMap((event) => (event.type === 'run-finished' ? [[event.runId, event]] : [])),
      );
      // Every run-started has its run-finished, and no run-finished closes a run never started.
      expect([...closed.keys()].sort()).toEqual([...started].sort());
      // Every item belongs to a run that was started and closed.
      for (const event of events) {
        if (event.type === 'items-appended') expect(closed.has(event.runId ?? '')).toBe(true);
      }
      // The next request is valid, and carries the aborted message only if its run was closed.
      const request = model.requests[requestsBefore];
      expect(validateTranscript(request?.transcript ?? [])).toEqual([]);
      const sent = request?.transcript.find(
        (item) => item.kind === 'user' && item.content === content,
      );
      const abortedRun = events.find(
        (event) =>
          event.type === 'items-appended' &&
          event.items.some((item) => item.kind === 'user' && item.content === content),
      );
      if (sent !== undefined) {
        logged += 1;
        expect(closed.get(abortedRun?.runId ?? '')?.outcome).toBe(aborted.outcome);
      } else expect(abortedRun).toBeUndefined();
    }
    console.log(
      `Same-tick abort: ${trials} trials, ${logged} logged inside a closed run, ${trials - logged} logged nothing, 0 unclosed runs`,
    );
    // Both paths occur: aborted before the first write (nothing logged), and after it.
    expect(logged).toBeGreaterThan(0);
    expect(logged).toBeLessThan(trials);
  });
});
