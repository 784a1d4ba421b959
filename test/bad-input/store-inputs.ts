import { access, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConfigError,
  FileSessionStore,
  MemorySessionStore,
  openAgentLoop,
  runTurn,
  type SessionEvent,
  StoreError,
} from 'loopkeeper';
import { SESSION_SCHEMA_VERSION } from 'loopkeeper/log';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { expect } from 'vitest';
import { reseal } from '../support/log-lines.js';
import {
  type CatalogEntry,
  expectRefused,
  expectTypedError,
  quoted,
  thrownBy,
} from './catalog-entry.js';

/** Runs `body` with a fresh temp dir, removed afterwards. */
async function inTempDirectory<T>(body: (directory: string) => Promise<T>): Promise<T> {
  const directory = await mkdtemp(join(tmpdir(), 'loopkeeper-bad-store-'));
  try {
    return await body(directory);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

function open(directory: string, sessionId: string, tokens: TokenCounter) {
  return openAgentLoop({
    model: new ScriptedModel({ tokens, script: () => ({ text: 'Fine.' }) }),
    store: new FileSessionStore({ directory }),
    sessionId,
    tokens,
  });
}

/** A real session log of one completed turn: 5 lines (run, user, usage, answer, finish). */
async function writeSession(directory: string, sessionId: string, tokens: TokenCounter) {
  const loop = await open(directory, sessionId, tokens);
  loop.start();
  await runTurn(loop, 'Remember this.');
  loop.stop();
  await loop.session.store.close();
  return join(directory, `${sessionId}.jsonl`);
}

async function readAll(directory: string, sessionId: string): Promise<SessionEvent[]> {
  const store = new FileSessionStore({ directory });
  const events: SessionEvent[] = [];
  for await (const event of store.read(sessionId)) events.push(event);
  await store.close();
  return events;
}

/** Rewrites line `lineNumber` (1-based) of a log file. */
async function editLine(path: string, lineNumber: number, edit: (line: string) => string) {
  const lines = (await readFile(path, 'utf8')).split('\n');
  lines[lineNumber - 1] = edit(lines[lineNumber - 1] ?? '');
  await writeFile(path, lines.join('\n'));
}

/** A corrupted log is refused by `openAgentLoop` with this code, and left byte for byte as it was. */
async function refusedLog({
  tokens,
  corrupt,
  code,
}: {
  tokens: TokenCounter;
  corrupt: (path: string) => Promise<void>;
  code: string;
}): Promise<string> {
  return inTempDirectory(async (directory) => {
    const path = await writeSession(directory, 'damaged', tokens);
    await corrupt(path);
    const bytes = await readFile(path);
    const result = await expectRefused(() => open(directory, 'damaged', tokens), StoreError, code);
    expect(await readFile(path)).toEqual(bytes);
    return `${result} naming file and line; the file is left untouched`;
  });
}

export const storeInputs: readonly CatalogEntry[] = [
  {
    area: 'store',
    input: "session id '../../etc/passwd'",
    check: ({ tokens }) =>
      inTempDirectory(async (directory) => {
        const store = new FileSessionStore({ directory: join(directory, 'sessions') });
        const refused = await expectRefused(
          () => store.append('../../etc/passwd', [{ type: 'run-started', runId: 'r' }]),
          ConfigError,
          'invalid_session_id',
        );
        await expectRefused(
          () => open(join(directory, 'sessions'), '../../etc/passwd', tokens),
          ConfigError,
          'invalid_session_id',
        );
        // Nothing was created, inside the directory or outside it.
        expect(await readdir(directory)).toEqual([]);
        await expect(access(join(directory, '..', '..', 'etc', 'passwd.jsonl'))).rejects.toThrow();
        return `${refused}; no file created anywhere`;
      }),
  },
  {
    area: 'store',
    input: "session id ''",
    check: ({ tokens }) =>
      inTempDirectory((directory) =>
        expectRefused(() => open(directory, '', tokens), ConfigError, 'invalid_session_id'),
      ),
  },
  {
    area: 'store',
    input: 'session id of 10,000 characters',
    check: ({ tokens }) =>
      inTempDirectory(async (directory) => {
        const error = await thrownBy(() => open(directory, 'a'.repeat(10_000), tokens));
        const refused = `throws ${expectTypedError(error, ConfigError, 'invalid_session_id')}`;
        // The message names the id without repeating 10,000 characters.
        expect((error as Error).message.length).toBeLessThan(300);
        return `${refused} with a short message`;
      }),
  },
  {
    area: 'store',
    input: "Windows device names as session ids ('con', 'NUL', 'nul.txt', 'COM1', 'lpt9.log')",
    check: ({ tokens }) =>
      inTempDirectory(async (directory) => {
        const store = new FileSessionStore({ directory });
        let refused = '';
        for (const sessionId of ['con', 'NUL', 'nul.txt', 'COM1', 'lpt9.log']) {
          refused = await expectRefused(
            () => store.append(sessionId, [{ type: 'run-started', runId: 'r' }]),
            ConfigError,
            'invalid_session_id',
          );
          await expectRefused(
            () => open(directory, sessionId, tokens),
            ConfigError,
            'invalid_session_id',
          );
        }
        expect(await readdir(directory)).toEqual([]);
        return `${refused} for all 5, on append and open; no file created`;
      }),
  },
  {
    area: 'store',
    input: 'unreadable directory (the path is a file)',
    check: ({ tokens }) =>
      inTempDirectory(async (directory) => {
        const file = join(directory, 'not-a-directory');
        await writeFile(file, 'precious data');
        const refused = await expectRefused(() => open(file, 'session', tokens), StoreError, 'io');
        const store = new FileSessionStore({ directory: file });
        await expectRefused(() => store.list(), StoreError, 'io');
        await expectRefused(
          () => store.append('session', [{ type: 'run-started', runId: 'r' }]),
          StoreError,
          'io',
        );
        expect(await readFile(file, 'utf8')).toBe('precious data');
        return `${refused} on open, list and append; the file is untouched`;
      }),
  },
  {
    area: 'store',
    input: 'corrupt file: a middle line that is not JSON',
    check: ({ tokens }) =>
      refusedLog({
        tokens,
        code: 'corrupt_log',
        corrupt: (path) => editLine(path, 2, (line) => line.slice(0, 25)),
      }),
  },
  {
    area: 'store',
    input: 'corrupt file: a line whose seq skips ahead',
    check: ({ tokens }) =>
      refusedLog({
        tokens,
        code: 'corrupt_log',
        corrupt: (path) => editLine(path, 3, (line) => reseal(line.replace('"seq":3', '"seq":7'))),
      }),
  },
  {
    area: 'store',
    input: 'corrupt file: a line from a newer schema version',
    check: ({ tokens }) =>
      refusedLog({
        tokens,
        code: 'unsupported_schema_version',
        corrupt: (path) =>
          editLine(path, 1, (line) =>
            reseal(line.replace(`"v":${SESSION_SCHEMA_VERSION}`, '"v":99')),
          ),
      }),
  },
  {
    area: 'store',
    input: 'torn last line (a crash mid-write)',
    check: ({ tokens }) =>
      inTempDirectory(async (directory) => {
        const path = await writeSession(directory, 'torn', tokens);
        const complete = await readAll(directory, 'torn');
        await writeFile(
          path,
          `${await readFile(path, 'utf8')}{"v":2,"seq":${complete.length + 1},"at":"20`,
        );
        const loop = await open(directory, 'torn', tokens);
        loop.start();
        const finished = await runTurn(loop, 'Still there?');
        loop.stop();
        await loop.session.store.close();
        expect(finished.outcome).toBe('completed');
        const after = await readAll(directory, 'torn');
        expect(after.slice(0, complete.length)).toEqual(complete);
        expect(after[complete.length]?.seq).toBe(complete.length + 1);
        return 'safe: the torn line is cut on open, every complete event is kept, the session goes on';
      }),
  },
  {
    area: 'store',
    input: 'append of an item without an id (MemorySessionStore)',
    check: async () => {
      const store = new MemorySessionStore();
      await store.append('kept', [{ type: 'run-started', runId: 'r1' }]);
      const error = await thrownBy(() =>
        store.append('kept', [
          { type: 'items-appended', items: [{ kind: 'user', content: 'no id' } as never] },
        ]),
      );
      const typed = expectTypedError(error, StoreError, 'invalid_event');
      const stored: unknown[] = [];
      for await (const event of store.read('kept')) stored.push(event);
      expect(stored).toHaveLength(1);
      return `throws ${typed}${quoted(error)}; nothing written, earlier events intact`;
    },
  },
];
