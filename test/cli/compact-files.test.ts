import { spawn } from 'node:child_process';
import { chmod, link, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  binPath,
  type CliResult,
  childEnvironment,
  ensureCliBuilt,
  runLoopkeeper,
} from './support/cli-process.js';
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
    await writeFile(join(inputs, 'wrong-shape.json'), '{"turns": []}');
    // Ends in a tool call no tool message answers, as a run killed mid-call leaves it.
    await writeFile(join(inputs, 'unanswered.json'), JSON.stringify(transcript.slice(0, 2)));
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

  it('does not replace an existing <name>.compacted.json without --force, and does with it', async () => {
    const work = join(directory, 'default-output');
    await mkdir(work, { recursive: true });
    const output = join(work, 'session.compacted.json');
    await writeFile(output, 'earlier result');
    const input = join(inputs, 'session.json');
    const refused = await runLoopkeeper(['compact', input, '--max-tokens', '2000'], { cwd: work });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toEqual([
      `loopkeeper compact: error: ${output} already exists; pass --force to replace it, or --out FILE to write elsewhere`,
    ]);
    expect(await readFile(output, 'utf8')).toBe('earlier result');

    const forced = await runLoopkeeper(['compact', input, '--max-tokens', '2000', '--force'], {
      cwd: work,
    });
    expect(forced.code).toBe(0);
    expect(JSON.parse(await readFile(output, 'utf8'))).toBeInstanceOf(Array);
    expect(await readdir(work)).toEqual(['session.compacted.json']);
    expect(await snapshotDirectory(inputs)).toEqual(before);
  });

  it('never replaces a file with the result of a failed run, even one --out names', async () => {
    const out = join(directory, 'kept.json');
    await writeFile(out, 'earlier result');
    const result = await runLoopkeeper([
      'compact',
      join(inputs, 'session.json'),
      '--out',
      out,
      '--max-tokens',
      '10',
      '--target-tokens',
      '5',
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`Did not write ${out}`);
    expect(result.stderr).toMatch(/It was not written: the output file exists/);
    expect(await readFile(out, 'utf8')).toBe('earlier result');
  });

  it('names the path the user gave when the output cannot be written, not its temporary file', async () => {
    const locked = join(directory, 'locked');
    await mkdir(locked, { recursive: true });
    await chmod(locked, 0o500);
    try {
      const missing = join(directory, 'no-such-dir', 'out.json');
      const inLocked = join(locked, 'out.json');
      for (const [out, reason] of [
        [missing, 'its directory does not exist'],
        [inLocked, 'permission denied'],
      ] as const) {
        // Root may write anywhere; the missing directory fails for everyone.
        if (process.getuid?.() === 0 && out === inLocked) continue;
        const result = await runLoopkeeper(['compact', join(inputs, 'session.json'), '--out', out]);
        expect(result.code).toBe(1);
        expect(result.stderr.trim().split('\n')).toEqual([
          `loopkeeper compact: error: Cannot write ${out}: ${reason}`,
        ]);
        expect(result.stderr).not.toMatch(/\.tmp/);
      }
    } finally {
      await chmod(locked, 0o700);
    }
  });

  it.each([
    ['wrong-shape.json', 'A transcript must be a JSON array of chat messages'],
    ['unanswered.json', 'is not a valid transcript: '],
  ])('names the input file in the error about %s', async (name, message) => {
    const path = join(inputs, name);
    const result = await runLoopkeeper(['compact', path, '--out', join(directory, 'x.json')]);
    expect(result.code).toBe(1);
    const [line] = result.stderr.trim().split('\n');
    expect(line).toContain(`loopkeeper compact: error: ${path}`);
    expect(line).toContain(message);
  });

  it('makes a transcript that ends in an unanswered tool call valid with --repair and reports the repair', async () => {
    const out = join(directory, 'repaired.json');
    const result = await runLoopkeeper([
      'compact',
      join(inputs, 'unanswered.json'),
      '--repair',
      '--out',
      out,
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Repaired the input (--repair), 1 change:');
    expect(result.stdout).toMatch(
      /message 2: call 'call_1' \(ls\) had no result; added synthetic error result/,
    );
    const written = JSON.parse(await readFile(out, 'utf8')) as { role: string }[];
    expect(written.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(await snapshotDirectory(inputs)).toEqual(before);
  });

  it('reads the transcript from standard input for "-" and writes the result to stdout', async () => {
    const result = await new Promise<CliResult>((resolve, reject) => {
      const child = spawn(process.execPath, [binPath, 'compact', '-', '--max-tokens', '2000'], {
        cwd: directory,
        env: childEnvironment(),
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(JSON.stringify(transcript));
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Compacted standard input');
    expect(result.stderr).toContain('Wrote 6 messages to stdout');
    expect(JSON.parse(result.stdout)).toHaveLength(6);
  });
});
