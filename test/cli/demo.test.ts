import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, ensureCliBuilt, runLoopkeeper } from './support/cli-process.js';

/** The value cell of a summary-table row. */
function row(stdout: string, metric: string): string {
  const line = stdout.split('\n').find((candidate) => candidate.trim().startsWith(metric));
  if (line === undefined) throw new Error(`no "${metric}" row in:\n${stdout}`);
  return line.trim().slice(metric.length).trim();
}

function count(text: string): number {
  return Number(text.split(' ')[0]?.replaceAll(',', ''));
}

describe('loopkeeper demo', () => {
  let directory: string;
  let result: CliResult;

  beforeAll(async () => {
    await ensureCliBuilt();
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-cli-demo-'));
    result = await runLoopkeeper(['demo', '--dir', directory]);
  }, 120_000);

  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('completes offline with exit code 0', () => {
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
  });

  it('prints a summary table with steps, tokens seen vs sent, compactions by tier and the log path', () => {
    const { stdout } = result;
    expect(stdout).toContain('Summary');
    const steps = count(row(stdout, 'steps (model requests)'));
    const seen = count(row(stdout, 'tokens seen (without compaction)'));
    const sent = count(row(stdout, 'tokens sent (reported prompt tokens)'));
    const tiers = [
      'structural',
      'summary',
      'emergency prune',
      'mutators (tool-output cap)',
      'provider',
    ].map((tier) => count(row(stdout, `compactions: ${tier}`)));
    const total = count(row(stdout, 'compactions: total'));
    expect(steps).toBeGreaterThan(100);
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(seen);
    expect(total).toBe(tiers.reduce((sum, tier) => sum + tier, 0));
    expect(total).toBeGreaterThanOrEqual(3);
    expect(row(stdout, 'wall time')).toMatch(/^\d+(\.\d)? m?s$/);
    expect(row(stdout, 'session log')).toMatch(new RegExp(`^${directory}/.+\\.jsonl$`));
  });

  it('keeps every request inside the window', () => {
    const largest = count(row(result.stdout, 'largest prompt sent'));
    expect(largest).toBeGreaterThan(0);
    expect(largest).toBeLessThanOrEqual(8192);
  });

  it('writes the whole session to the file store, compaction markers included', async () => {
    const logPath = row(result.stdout, 'session log');
    const events = (await readFile(logPath, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; seq: number });
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const markers = events.filter((event) => event.type === 'transcript-replaced');
    expect(markers.length).toBe(count(row(result.stdout, 'compactions: total')));
    expect(events.filter((event) => event.type === 'run-finished').length).toBe(25);
  });

  it('shows progress on stderr as plain lines when it is not a terminal', () => {
    const lines = result.stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) {
      expect(line).toMatch(
        /^step \d+ \| turn \d+\/25 \| history [\d,]+\/8,192 tokens \(\d+%\) \| compactions \d+ \| emergency prunes \d+$/,
      );
    }
    expect(result.stderr).not.toContain('\r');
    // Not a terminal: no colour codes anywhere.
    expect(result.stdout + result.stderr).not.toContain('\u001b[');
  });
});
