import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, runLoopkeeper } from './support/cli-process.js';
import { snapshotDirectory } from './support/file-snapshot.js';

/** One user request answered after `steps` tool calls, each its own model request. */
function longSingleTurn(steps: number): unknown[] {
  const messages: unknown[] = [{ role: 'user', content: 'Count the files, one call at a time.' }];
  for (let step = 1; step <= steps; step += 1) {
    const id = `call_${step}`;
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name: 'count', arguments: '{}' } }],
    });
    messages.push({ role: 'tool', tool_call_id: id, content: `file ${step}` });
  }
  messages.push({ role: 'assistant', content: `There are ${steps} files.` });
  return messages;
}

describe('loopkeeper demo --transcripts', () => {
  let root: string;
  let transcripts: string;
  let before: Record<string, string>;

  beforeAll(async () => {
    await ensureCliBuilt();
    root = await mkdtemp(join(tmpdir(), 'loopkeeper-cli-demo-transcripts-'));
    transcripts = join(root, 'transcripts');
    await mkdir(transcripts);
    await writeFile(join(transcripts, 'long.json'), JSON.stringify(longSingleTurn(100)));
    before = await snapshotDirectory(transcripts);
  }, 120_000);

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('says the step limit ended a 100-step turn and how to raise it, exit 1', async () => {
    const result = await runLoopkeeper(['demo', '--transcripts', transcripts, '--dir', root]);
    expect(result.code).toBe(1);
    const failure = result.stderr.trim().split('\n').at(-1);
    expect(failure).toBe(
      'loopkeeper demo: error: Replay turn 1 (long) was ended by the step limit after 50 model requests (at most 50 per run); the recording needs more: raise the limit with --max-steps, e.g. --max-steps 200.',
    );
    expect(await snapshotDirectory(transcripts)).toEqual(before);
  });

  it('replays the whole turn with --max-steps raised', async () => {
    const result = await runLoopkeeper([
      'demo',
      '--transcripts',
      transcripts,
      '--dir',
      root,
      '--max-steps',
      '200',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as { steps: number; runs: number };
    expect(summary.steps).toBe(101);
    expect(summary.runs).toBe(1);
    expect(await snapshotDirectory(transcripts)).toEqual(before);
  });
});
