import {
  createAgentLoop,
  MemorySessionStore,
  runTurn,
  type SessionEvent,
  type SessionStore,
  StoreError,
} from 'loopkeeper';
import type { AppendOptions, NewSessionEvent, ReadOptions } from 'loopkeeper/log';
import { ScriptedModel } from 'loopkeeper/testing';
import { describe, expect, it } from 'vitest';
import { readSession } from '../support/loop-harness.js';

/** A store whose reads fail on demand, as a disk error after the run was logged would. */
class UnreadableStore implements SessionStore {
  readonly inner = new MemorySessionStore();
  failReads = false;

  append(
    sessionId: string,
    events: readonly NewSessionEvent[],
    options?: AppendOptions,
  ): Promise<readonly SessionEvent[]> {
    return this.inner.append(sessionId, events, options);
  }

  read(sessionId: string, options?: ReadOptions): AsyncIterable<SessionEvent> {
    if (!this.failReads) return this.inner.read(sessionId, options);
    return (async function* () {
      yield* [];
      throw new StoreError('Cannot read session log: EIO: i/o error, read', { code: 'io' });
    })();
  }

  list(): Promise<readonly string[]> {
    return this.inner.list();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

describe('runTurn when reading the result back fails', () => {
  it('resolves with the outcome RunFinished reported and marks the record unavailable', async () => {
    const store = new UnreadableStore();
    const loop = createAgentLoop({
      model: new ScriptedModel({ turns: [{ text: 'Paris.' }, { text: 'Rome.' }] }),
      store,
      sessionId: 's',
    });
    loop.start();
    const once = loop.on('RunFinished', () => {
      store.failReads = true;
      once.unsubscribe();
    });
    const result = await runTurn(loop, 'Capital of France?');
    expect(result).toMatchObject({
      outcome: 'completed',
      text: null,
      itemsAdded: [],
      usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0 },
      recordError: { name: 'StoreError', code: 'io' },
    });
    expect(result.recordError?.message).toContain('EIO');
    // The run really is in the log, once: a host must not send the message again.
    store.failReads = false;
    const events = await readSession(store.inner, 's');
    expect(events.filter((event) => event.type === 'run-finished')).toHaveLength(1);
    // And the session goes on.
    const next = await runTurn(loop, 'Capital of Italy?');
    expect(next).toMatchObject({ outcome: 'completed', text: 'Rome.' });
    expect(next.recordError).toBeUndefined();
    loop.stop();
  });
});
