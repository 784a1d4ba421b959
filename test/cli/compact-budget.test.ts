import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTokenCounter, fromChatMessages } from 'loopkeeper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, packageRoot, runLoopkeeper } from './support/cli-process.js';
import { snapshotDirectory } from './support/file-snapshot.js';

const words = Array.from({ length: 3000 }, (_, index) => `word${index}`).join(' ');

describe('loopkeeper compact over the budget', () => {
  let directory: string;
  let inputs: string;

  beforeAll(async () => {
    await ensureCliBuilt();
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-cli-compact-budget-'));
    inputs = join(directory, 'inputs');
    await mkdir(inputs);
    await writeFile(
      join(inputs, 'one-turn.json'),
      JSON.stringify([
        { role: 'user', content: `Read this: ${words}` },
        { role: 'assistant', content: 'ok' },
      ]),
    );
    await writeFile(
      join(inputs, 'two-turns.json'),
      JSON.stringify([
        { role: 'user', content: `Please fix the build. ${words}` },
        { role: 'assistant', content: `Looked at it. ${words}` },
        { role: 'user', content: 'And now?' },
        { role: 'assistant', content: 'Done.' },
      ]),
    );
  }, 120_000);

  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('exits 1 when no strategy can fit a one-turn transcript, saying by how much and the budget that would fit', async () => {
    const before = await snapshotDirectory(inputs);
    const out = join(directory, 'one.compacted.json');
    const input = join(inputs, 'one-turn.json');
    const result = await runLoopkeeper([
      'compact',
      input,
      '--strategy',
      'emergencyPrune',
      '--max-tokens',
      '2000',
      '--out',
      out,
    ]);
    expect(result.code).toBe(1);
    const tokens = await createTokenCounter();
    const total = tokens.count(fromChatMessages(JSON.parse(await readFile(input, 'utf8'))));
    const format = (value: number) => value.toLocaleString('en-US');
    // keepRecent, tried for the advice, keeps the latest user message and its answer too.
    expect(result.stderr.trim().split('\n')).toEqual([
      `loopkeeper compact: error: The result is still ${format(total - 2000)} tokens over --max-tokens (${format(total)} > 2,000); no stronger strategy gets it lower: raise --max-tokens to at least ${format(total)}. It was written to ${out} anyway.`,
    ]);
    expect(result.stdout).toContain(
      `The result is protocol-valid but ${format(total - 2000)} tokens over --max-tokens (2,000).`,
    );
    expect(result.stdout).not.toMatch(/add a stronger strategy|such as/);
    expect(await snapshotDirectory(inputs)).toEqual(before);
  });

  it('suggests a stronger strategy when older turns could go, and that suggestion fits', async () => {
    const before = await snapshotDirectory(inputs);
    const input = join(inputs, 'two-turns.json');
    const out = join(directory, 'two.compacted.json');
    const common = ['compact', input, '--max-tokens', '2000', '--out', out, '--json'];
    const weak = await runLoopkeeper([...common, '--strategy', 'dropReasoning']);
    expect(weak.code).toBe(1);
    const [line] = weak.stderr.trim().split('\n');
    expect(line).toMatch(
      /^loopkeeper compact: error: The result is still [\d,]+ tokens over --max-tokens \([\d,]+ > 2,000\); add a stronger strategy: --strategy dropReasoning,emergencyPrune \(it gets the result to [\d,]+ tokens\)\. It was written to .+ anyway\.$/,
    );
    expect(weak.stderr.trim().split('\n')).toHaveLength(1);
    expect((JSON.parse(weak.stdout) as { fits: boolean }).fits).toBe(false);

    const strong = await runLoopkeeper([...common, '--strategy', 'dropReasoning,emergencyPrune']);
    expect(strong.stderr).toBe('');
    expect(strong.code).toBe(0);
    expect((JSON.parse(strong.stdout) as { fits: boolean }).fits).toBe(true);
    expect(await snapshotDirectory(inputs)).toEqual(before);
  });
});

// SWE-agent and OpenHands runs are one user message followed by every tool call: the whole
// transcript is one turn, which emergencyPrune keeps whole and keepRecent cuts into.
describe('loopkeeper compact on a single-turn agent transcript', () => {
  const fixture = join(
    packageRoot,
    'test',
    'fixtures',
    'transcripts',
    'swe-agent_ctf-web-i_got_id.json',
  );
  let directory: string;

  beforeAll(async () => {
    await ensureCliBuilt();
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-cli-compact-one-turn-'));
  }, 120_000);

  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  const budget = ['--max-tokens', '2000'];

  it('names keepRecent, which fits, rather than a budget raise or emergencyPrune, which changes nothing', async () => {
    const out = join(directory, 'default.json');
    const result = await runLoopkeeper(['compact', fixture, ...budget, '--out', out]);
    expect(result.code).toBe(1);
    const match =
      /add a stronger strategy: --strategy (\S+) \(it gets the result to ([\d,]+) tokens\)/.exec(
        result.stderr,
      );
    expect(match, result.stderr).not.toBeNull();
    expect(match?.[1]).toContain('keepRecent');
    expect(result.stderr).not.toMatch(/raise --max-tokens/);

    // Following the advice succeeds, at the size it promised.
    const followed = await runLoopkeeper([
      'compact',
      fixture,
      ...budget,
      '--strategy',
      match?.[1] ?? '',
      '--out',
      join(directory, 'followed.json'),
      '--json',
    ]);
    expect(followed.stderr).toBe('');
    expect(followed.code).toBe(0);
    const report = JSON.parse(followed.stdout) as { after: { tokens: number } };
    expect(report.after.tokens.toLocaleString('en-US')).toBe(match?.[2]);
  });

  it('does not suggest emergencyPrune alone, whose result here is as large as before', async () => {
    const result = await runLoopkeeper([
      'compact',
      fixture,
      ...budget,
      '--strategy',
      'dropReasoning',
      '--out',
      join(directory, 'weak.json'),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(/--strategy dropReasoning,emergencyPrune \(/);
    expect(result.stderr).toMatch(/--strategy dropReasoning,keepRecent \(it gets the result to/);
  });
});
