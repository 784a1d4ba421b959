import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnvironment, ensureCliBuilt, runLoopkeeper } from './support/cli-process.js';

describe("loopkeeper demo's temporary directory", () => {
  let directory: string;
  let transcripts: string;

  beforeAll(async () => {
    await ensureCliBuilt();
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-cli-demo-directory-'));
    transcripts = join(directory, 'transcripts');
    await mkdir(transcripts);
    // One short recording keeps the replay quick; the directory handling is the same.
    await writeFile(
      join(transcripts, 'short.json'),
      JSON.stringify([
        { role: 'user', content: 'Say hello.' },
        { role: 'assistant', content: 'Hello.' },
      ]),
    );
  }, 120_000);

  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  /** Runs the demo with its own TMPDIR, so what it leaves there can be listed. */
  async function demoIn(temporary: string, args: readonly string[] = []) {
    await mkdir(temporary, { recursive: true });
    const result = await runLoopkeeper(['demo', '--transcripts', transcripts, ...args], {
      env: childEnvironment({ TMPDIR: temporary }),
    });
    return { result, left: await readdir(temporary) };
  }

  it('removes the temporary directory it made, and says how to keep it', async () => {
    const { result, left } = await demoIn(join(directory, 'tmp-removed'));
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    expect(left).toEqual([]);
    expect(result.stdout).toContain('removed now; run with --keep (or --dir DIR) to keep it');
    expect(result.stdout).toMatch(/session log +\S+\.jsonl \(removed at the end\)/);
  });

  it('keeps it with --keep and says where it is', async () => {
    const temporary = join(directory, 'tmp-kept');
    const { result, left } = await demoIn(temporary, ['--keep']);
    expect(result.code).toBe(0);
    expect(left).toHaveLength(1);
    const kept = join(temporary, left[0] ?? '');
    expect(result.stdout).toContain(`Kept the session log in ${kept}.`);
    expect(result.stdout).toMatch(/Audit the session: (npx )?loopkeeper show \S+\.jsonl/);
    expect((await readdir(kept)).some((name) => name.endsWith('.jsonl'))).toBe(true);
  });
});
