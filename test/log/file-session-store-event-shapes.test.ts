import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSessionStore, openAgentLoop, StoreError } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { sealLine } from '../../src/log/line-checksum.js';
import { sharedTokenCounter } from '../support/loop-harness.js';

/**
 * Lines with a valid checksum whose content is still not an event: forged, or written by a
 * buggy tool. Every reader must refuse them typed, naming file and line (line 2 here).
 */
const DEPTH = 100_000;
const SHAPES: readonly (readonly [string, string])[] = [
  [
    'items: null',
    '{"v":3,"seq":2,"at":"2026-12-03T00:00:00.000Z","type":"items-appended","items":null}',
  ],
  [
    'view: null',
    '{"v":3,"seq":2,"at":"2026-12-03T00:00:00.000Z","type":"transcript-replaced","throughSeq":1,"view":null,"reason":"threshold","tier":"structural","strategies":[],"tokensBefore":2,"tokensAfter":1}',
  ],
  [
    `${DEPTH.toLocaleString('en-US')}-deep nesting`,
    `{"v":3,"seq":2,"at":"2026-12-03T00:00:00.000Z","type":"items-appended","items":[{"id":"u2","kind":"user","content":"x","extra":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}]}`,
  ],
];
const FIRST = '{"v":3,"seq":1,"at":"2026-12-03T00:00:00.000Z","type":"run-started","runId":"r1"}';

let directory: string;
let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
  directory = await mkdtemp(join(tmpdir(), 'loopkeeper-event-shapes-'));
  for (const [index, [, line]] of SHAPES.entries()) {
    await writeFile(join(directory, `s${index}.jsonl`), `${sealLine(FIRST)}\n${sealLine(line)}\n`);
  }
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

function expectTypedRefusal(error: unknown, sessionId: string): void {
  expect(StoreError.isInstance(error), String(error)).toBe(true);
  expect((error as StoreError).code).toBe('corrupt_log');
  expect((error as StoreError).message).toContain(`${sessionId}.jsonl, line 2`);
}

describe('FileSessionStore on checksummed lines that are not events', () => {
  for (const [index, [name]] of SHAPES.entries()) {
    const sessionId = `s${index}`;
    it(`read refuses ${name} with StoreError naming file and line`, async () => {
      const store = new FileSessionStore({ directory });
      const before = await readFile(join(directory, `${sessionId}.jsonl`));
      const error = await (async () => {
        for await (const _event of store.read(sessionId));
      })().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expectTypedRefusal(error, sessionId);
      await store.close();
      expect((await readFile(join(directory, `${sessionId}.jsonl`))).equals(before)).toBe(true);
    });

    it(`openAgentLoop refuses ${name} with StoreError`, async () => {
      const store = new FileSessionStore({ directory });
      const model = new ScriptedModel({ turns: [] });
      const error = await openAgentLoop({ model, store, sessionId, tokens }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expectTypedRefusal(error, sessionId);
      expect(model.requests).toHaveLength(0);
      await store.close();
    });

    it(`loopkeeper show refuses ${name} with one error line, exit 1`, async () => {
      let stderr = '';
      const sink = { write: () => true, isTTY: false };
      const errors = {
        write: (chunk: string) => {
          stderr += chunk;
          return true;
        },
        isTTY: false,
      };
      const code = await runCli({
        argv: ['show', sessionId, '--dir', directory],
        environment: { stdout: sink, stderr: errors, env: {}, cwd: directory },
      });
      expect(code).toBe(1);
      expect(stderr).toContain(`${sessionId}.jsonl, line 2`);
      expect(stderr).not.toMatch(/TypeError|RangeError|Maximum call stack/);
    });
  }

  it('an append nested deeper than the limit is refused before anything is written', async () => {
    const store = new FileSessionStore({ directory });
    let deep: unknown = 'x';
    for (let level = 0; level < 2000; level += 1) deep = [deep];
    const error = await store
      .append('fresh', [
        {
          type: 'items-appended',
          items: [{ id: 'u1', kind: 'user', content: 'x', deep } as never],
        },
      ])
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(StoreError.isInstance(error)).toBe(true);
    expect((error as StoreError).code).toBe('invalid_event');
    expect((await readFile(join(directory, 'fresh.jsonl'))).byteLength).toBe(0);
    await store.close();
  });
});
