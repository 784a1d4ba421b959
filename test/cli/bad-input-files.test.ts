import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSessionStore } from 'loopkeeper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { user } from '../support/items.js';
import { itemsAppended } from '../support/session-events.js';
import { ensureCliBuilt, runLoopkeeper } from './support/cli-process.js';
import { snapshotDirectory } from './support/file-snapshot.js';

const messages = [
  { role: 'user', content: 'Hello.' },
  { role: 'assistant', content: 'Hi, what can I do?' },
];

// Each case checks the one line it prints, its exit code, and that the files were only read.
describe('loopkeeper and broken or unusual input files', () => {
  let root: string;

  beforeAll(async () => {
    await ensureCliBuilt();
    root = await mkdtemp(join(tmpdir(), 'loopkeeper-cli-bad-files-'));
  }, 120_000);

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function folder(name: string, files: Record<string, string>): Promise<string> {
    const directory = join(root, name);
    await mkdir(directory);
    for (const [file, text] of Object.entries(files)) await writeFile(join(directory, file), text);
    return directory;
  }

  it('compact accepts a transcript that starts with a byte order mark', async () => {
    const inputs = await folder('bom', { 'bom.json': `\uFEFF${JSON.stringify(messages)}` });
    const before = await snapshotDirectory(inputs);
    const out = join(root, 'bom.compacted.json');
    const result = await runLoopkeeper(['compact', join(inputs, 'bom.json'), '--out', out]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Wrote 2 messages');
    expect(await snapshotDirectory(inputs)).toEqual(before);
  });

  it('demo --transcripts replays a recording that starts with a byte order mark', async () => {
    const inputs = await folder('bom-demo', { 'bom.json': `\uFEFF${JSON.stringify(messages)}` });
    const before = await snapshotDirectory(inputs);
    const result = await runLoopkeeper(['demo', '--transcripts', inputs, '--dir', root, '--json']);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { recordings: number }).recordings).toBe(1);
    expect(await snapshotDirectory(inputs)).toEqual(before);
  });

  it('demo --transcripts names the file that is not valid JSON, exit 1', async () => {
    const inputs = await folder('broken-json', {
      'a-good.json': JSON.stringify(messages),
      'b-broken.json': '[{"role": "user", "content": "cut',
    });
    const before = await snapshotDirectory(inputs);
    const result = await runLoopkeeper(['demo', '--transcripts', inputs, '--dir', root]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^loopkeeper demo: error: ${join(inputs, 'b-broken.json')} is not valid JSON: [^\\uFEFF]+$`,
        ),
      ),
    ]);
    expect(await snapshotDirectory(inputs)).toEqual(before);
  });

  it('demo --transcripts names the file that is not a valid transcript, exit 1', async () => {
    const inputs = await folder('not-transcript', {
      'orphan.json': JSON.stringify([{ role: 'tool', tool_call_id: 'nowhere', content: 'x' }]),
      'shape.json': '{"turns": []}',
    });
    const before = await snapshotDirectory(inputs);
    const result = await runLoopkeeper(['demo', '--transcripts', inputs, '--dir', root]);
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^loopkeeper demo: error: ${join(inputs, '(orphan|shape)\\.json')}: `),
    );
    expect(await snapshotDirectory(inputs)).toEqual(before);
  });

  it('show says a torn last line was left out, and shows the complete events, exit 0', async () => {
    const sessions = join(root, 'torn');
    const store = new FileSessionStore({ directory: sessions });
    await store.append('crashed', [itemsAppended([user('u1', 'before the crash')])]);
    await store.close();
    const log = join(sessions, 'crashed.jsonl');
    await appendFile(log, '{"v":2,"seq":2,"type":"items-app');
    const before = await snapshotDirectory(sessions);
    const result = await runLoopkeeper(['show', log, '--json']);
    expect(result.code).toBe(0);
    expect(result.stderr.trim().split('\n')).toEqual([
      `loopkeeper show: note: line 2 of ${log} is torn (32 bytes of a write cut short, e.g. by a crash); it is not an event and is left out. The log is unchanged; its next writer cuts the line away.`,
    ]);
    const audit = JSON.parse(result.stdout) as { entries: { seq: number }[] };
    expect(audit.entries.map((entry) => entry.seq)).toEqual([1]);
    expect(await snapshotDirectory(sessions)).toEqual(before);
  });

  it.each([
    ['a path', (file: string) => file],
    ['a name in the current directory', () => 'notes.json'],
  ])(
    'show says a file that is not .jsonl is not a session log (%s), exit 1',
    async (_case, arg) => {
      const directory = await folder(`not-jsonl-${_case.length}`, { 'notes.json': '[]' });
      const before = await snapshotDirectory(directory);
      const result = await runLoopkeeper(['show', arg(join(directory, 'notes.json'))], {
        cwd: directory,
      });
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([
        `loopkeeper show: error: ${join(directory, 'notes.json')} is not a session log: show reads a session id or a session's .jsonl log`,
      ]);
      expect(await snapshotDirectory(directory)).toEqual(before);
    },
  );
});
