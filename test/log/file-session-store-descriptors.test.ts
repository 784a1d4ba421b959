import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSessionStore, openAgentLoop, ProtocolError, StoreError } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { answer, user } from '../support/items.js';
import { sharedTokenCounter } from '../support/loop-harness.js';
import { itemsAppended } from '../support/session-events.js';

const ROUNDS = 100;

/** Descriptors this process holds open now (Linux). */
function openDescriptors(): number {
  return readdirSync('/proc/self/fd').length;
}

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

describe.runIf(process.platform === 'linux')('FileSessionStore.read descriptors', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-descriptors-'));
    const store = new FileSessionStore({ directory });
    await store.append('s', [
      { type: 'run-started', runId: 'r1' },
      itemsAppended([user('u1'), answer('a1')]),
      { type: 'run-finished', runId: 'r1', outcome: 'completed', steps: 1 },
    ]);
    // An orphan tool result: every line is intact, so only opening the loop refuses it.
    await store.append('orphan', [
      itemsAppended([
        user('u1'),
        {
          kind: 'toolResult',
          id: 'r1',
          callId: 'call_nobody_made',
          toolName: 'ls',
          content: 'x',
          isError: false,
        },
      ]),
    ]);
    await store.close();
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it(`closes the log file when the reader breaks out early (${ROUNDS} breaks)`, async () => {
    const store = new FileSessionStore({ directory });
    const before = openDescriptors();
    let seen = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      for await (const event of store.read('s')) {
        seen += event.seq;
        break;
      }
    }
    expect(seen).toBe(ROUNDS);
    expect(openDescriptors() - before).toBe(0);
    await store.close();
  });

  it(`closes the log file when the reader's loop throws (${ROUNDS} throws)`, async () => {
    const store = new FileSessionStore({ directory });
    const before = openDescriptors();
    for (let round = 0; round < ROUNDS; round += 1) {
      await expect(
        (async () => {
          for await (const _event of store.read('s')) throw new Error('reader gave up');
        })(),
      ).rejects.toThrow('reader gave up');
    }
    expect(openDescriptors() - before).toBe(0);
    await store.close();
  });

  it('closes the log file on every failed open of a malformed log (openAgentLoop)', async () => {
    const before = openDescriptors();
    for (let round = 0; round < 20; round += 1) {
      const store = new FileSessionStore({ directory });
      const model = new ScriptedModel({ turns: [] });
      const opened = openAgentLoop({ model, store, sessionId: 'orphan', tokens });
      await expect(opened).rejects.toSatisfy((error) => ProtocolError.isInstance(error));
      await store.close();
    }
    expect(openDescriptors() - before).toBe(0);
  });

  it('closes the log file when a line is refused as corrupt', async () => {
    const store = new FileSessionStore({ directory });
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(directory, 'bad.jsonl'), '{"v":1,"seq":1}\nnot json\n');
    const before = openDescriptors();
    for (let round = 0; round < ROUNDS; round += 1) {
      await expect(
        (async () => {
          for await (const _event of store.read('bad'));
        })(),
      ).rejects.toSatisfy((error) => StoreError.isInstance(error));
    }
    expect(openDescriptors() - before).toBe(0);
    await store.close();
  });
});
