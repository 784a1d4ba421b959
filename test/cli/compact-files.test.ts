import { link, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureCliBuilt, runLoopkeeper } from './support/cli-process.js';
import { snapshotDirectory } from './support/file-snapshot.js';

const transcript = [
  { role: 'user', content: 'List the logs.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'app.log\n'.repeat(2_000) },
  { role: 'assistant', content: 'Many app.log entries.' },
  { role: 'user', content: 'Which one is newest?' },
  { role: 'assistant', content: 'The last one.' },
];

// Every case here must leave the user's files as they were.
describe("loopkeeper compact and the user's files", () => {
  let directory: string;
  let inputs: string;
  let before: Record<string, string>;

  beforeAll(async () => {
    await ensureCliBuilt();
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-cli-compact-files-'));
    inputs = join(directory, 'inputs');
    await mkdir(inputs);
    await writeFile(join(inputs, 'session.json'), JSON.stringify(transcript));
    await link(join(inputs, 'session.json'), join(inputs, 'hard-link.json'));
    await writeFile(join(inputs, 'empty.json'), '[]');
    await writeFile(join(inputs, 'empty-object.json'), '{"messages": []}');
  }, 120_000);

  beforeEach(async () => {
    before = await snapshotDirectory(inputs);
  });

  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it.each([
    ['the same path', 'session.json', 'session.json'],
    ['another spelling of the path', 'session.json', './../inputs/session.json'],
    ['a hard link to it', 'session.json', 'hard-link.json'],
  ])('refuses --out naming the input file (%s) with exit 2', async (_case, input, out) => {
    const result = await runLoopkeeper(['compact', input, '--out', out, '--max-tokens', '2000'], {
      cwd: inputs,
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const [message, usage] = result.stderr.trim().split('\n');
    expect(message).toBe(
      `loopkeeper compact: --out ${out} is the input file; compact never overwrites its input (the result is lossy): choose another --out`,
    );
    expect(usage).toMatch(/^Usage: loopkeeper compact /);
    expect(await snapshotDirectory(inputs)).toEqual(before);
  });

  it.each([
    ['an empty array', 'empty.json'],
    ['an object with no messages', 'empty-object.json'],
  ])('refuses %s as an empty transcript with exit 1 and writes nothing', async (_case, name) => {
    const out = join(directory, `${name}.out.json`);
    const result = await runLoopkeeper(['compact', join(inputs, name), '--out', out]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      `loopkeeper compact: error: ${join(inputs, name)} is an empty transcript: it holds no messages to compact`,
    ]);
    expect(await readdir(directory)).not.toContain(`${name}.out.json`);
    expect(await snapshotDirectory(inputs)).toEqual(before);
  });

  it('replaces an existing output file whole and leaves no temporary file behind', async () => {
    const outputs = join(directory, 'outputs');
    await mkdir(outputs, { recursive: true });
    const out = join(outputs, 'result.json');
    await writeFile(out, 'previous content');
    const result = await runLoopkeeper([
      'compact',
      join(inputs, 'session.json'),
      '--out',
      out,
      '--max-tokens',
      '2000',
    ]);
    expect(result.code).toBe(0);
    expect(await readdir(outputs)).toEqual(['result.json']);
    expect(await snapshotDirectory(inputs)).toEqual(before);
  });
});
