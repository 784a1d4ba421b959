import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeToolCalls } from 'loopkeeper/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createWorkspaceTools,
  DEFAULT_WORKSPACE_LIMITS,
} from '../../src/cli/run/workspace-tools.js';

describe('createWorkspaceTools', () => {
  let outside: string;
  let root: string;

  beforeAll(async () => {
    outside = await realpath(await mkdtemp(join(tmpdir(), 'loopkeeper-workspace-')));
    root = join(outside, 'root');
    await mkdir(join(root, 'src', 'deep'), { recursive: true });
    await mkdir(join(root, 'node_modules', 'dependency'), { recursive: true });
    await writeFile(join(root, 'README.md'), 'hello\nworld\n');
    await writeFile(join(root, 'src', 'index.ts'), 'export const answer = 42;\n');
    await writeFile(join(root, 'src', 'deep', 'long.txt'), `${'line\n'.repeat(10_000)}`);
    await writeFile(
      join(root, 'node_modules', 'dependency', 'index.js'),
      'export const answer = 0;\n',
    );
    await writeFile(join(root, 'binary.bin'), Buffer.from([0, 1, 2, 3]));
    await writeFile(join(outside, 'secret.txt'), 'do not read\n');
    await symlink(join(outside, 'secret.txt'), join(root, 'escape.txt'));
    await symlink(outside, join(root, 'escape-dir'));
  });

  afterAll(async () => {
    await rm(outside, { recursive: true, force: true });
  });

  async function call(name: string, args: Record<string, unknown>) {
    const [result] = await executeToolCalls({
      tools: createWorkspaceTools({ root }),
      calls: [{ id: 'call_1', name, arguments: JSON.stringify(args) }],
    });
    if (result === undefined) throw new Error('no result');
    return result;
  }

  it.each([
    ['read_file', { path: '../secret.txt' }],
    ['read_file', { path: '/etc/hostname' }],
    ['read_file', { path: 'escape.txt' }],
    ['list_files', { path: 'escape-dir' }],
    ['list_files', { path: '..' }],
    ['search_text', { pattern: 'do not', path: '../' }],
  ])('refuses %s %j: the path leaves the working directory', async (name, args) => {
    const result = await call(name, args);
    expect(result.isError).toBe(true);
    expect(result.content).toContain('outside the working directory');
    expect(result.content).not.toContain('do not read');
  });

  it('lists a directory, recursively without tooling folders and without following links', async () => {
    const flat = await call('list_files', {});
    // Links are left out: following one could lead out of the directory.
    expect(flat.content.split('\n')).toEqual(['binary.bin', 'node_modules/', 'README.md', 'src/']);
    const deep = await call('list_files', { recursive: true });
    expect(deep.content).toContain('src/deep/long.txt');
    expect(deep.content).not.toContain('node_modules/dependency');
  });

  it('reads a file with line numbers and cuts long output with a note on how to go on', async () => {
    expect((await call('read_file', { path: 'README.md' })).content).toBe('1: hello\n2: world');
    const long = await call('read_file', { path: 'src/deep/long.txt' });
    expect(long.content.length).toBeLessThanOrEqual(
      DEFAULT_WORKSPACE_LIMITS.maxReadCharacters + 200,
    );
    const note = long.content.split('\n').at(-1);
    const next = Number(note?.match(/start_line (\d+)/)?.[1]);
    expect(next).toBeGreaterThan(1);
    const rest = await call('read_file', { path: 'src/deep/long.txt', start_line: next });
    expect(rest.content.startsWith(`${next}: line`)).toBe(true);
  });

  it('refuses binary files', async () => {
    const result = await call('read_file', { path: 'binary.bin' });
    expect(result.isError).toBe(true);
    expect(result.content).toContain('binary');
  });

  it('searches text files for a literal string, skipping node_modules', async () => {
    const result = await call('search_text', { pattern: 'export const answer' });
    expect(result.content).toBe('src/index.ts:1: export const answer = 42;');
    const none = await call('search_text', { pattern: 'nowhere to be found' });
    expect(none.content).toBe('No matches for "nowhere to be found".');
    const capped = await call('search_text', { pattern: 'line' });
    expect(capped.content.split('\n')).toHaveLength(DEFAULT_WORKSPACE_LIMITS.maxMatches + 1);
    expect(capped.content).toContain(`stopped at ${DEFAULT_WORKSPACE_LIMITS.maxMatches} matches`);
  });

  it('declares write_file, and only write_file, as needing approval', () => {
    const tools = createWorkspaceTools({ root });
    expect(tools.map((tool) => [tool.name, tool.needsApproval ?? false])).toEqual([
      ['list_files', false],
      ['read_file', false],
      ['search_text', false],
      ['write_file', true],
    ]);
  });

  it('writes a file, creating missing directories, and replaces it whole', async () => {
    const created = await call('write_file', { path: 'out/new/notes.md', content: 'first\n' });
    expect(created).toMatchObject({
      isError: false,
      content: 'Created out/new/notes.md (6 characters).',
    });
    const replaced = await call('write_file', { path: 'out/new/notes.md', content: 'second' });
    expect(replaced.content).toBe('Replaced out/new/notes.md (6 characters).');
    expect(await readFile(join(root, 'out', 'new', 'notes.md'), 'utf8')).toBe('second');
    // Written through a temporary file and a rename: nothing else is left behind.
    expect(await readdir(join(root, 'out', 'new'))).toEqual(['notes.md']);
  });

  it.each([
    { path: '../written.txt' },
    { path: join('..', 'root', '..', 'written.txt') },
    { path: '/tmp/loopkeeper-written.txt' },
    { path: 'escape.txt' },
    { path: 'escape-dir/written.txt' },
    { path: 'escape-dir/new/written.txt' },
    { path: '.' },
  ])('refuses to write %j: the path leaves the working directory', async ({ path }) => {
    const result = await call('write_file', { path, content: 'overwritten' });
    expect(result.isError).toBe(true);
    expect(result.content).toContain('outside the working directory');
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('do not read\n');
    expect((await readdir(outside)).sort()).toEqual(['root', 'secret.txt']);
  });

  it('refuses to write over a directory', async () => {
    const result = await call('write_file', { path: 'src', content: 'x' });
    expect(result.isError).toBe(true);
    expect(result.content).toContain('is a directory');
  });
});
