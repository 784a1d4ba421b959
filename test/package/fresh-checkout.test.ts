import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../cli/support/cli-process.js';
import { runNpm } from './support/npm-pack.js';

const run = promisify(execFile);

// A copy of the tracked files stands in for a fresh clone: no dist/, no node_modules/.
describe('a fresh source checkout', () => {
  let checkout: string;

  beforeAll(async () => {
    checkout = await mkdtemp(join(tmpdir(), 'loopkeeper-checkout-'));
    const { stdout } = await run('git', ['ls-files', '-z'], { cwd: packageRoot });
    const tracked = stdout.split('\0').filter((path) => path !== '');
    await Promise.all(
      tracked.map((path) => cp(join(packageRoot, path), join(checkout, path), { force: true })),
    );
    // Offline: every package of the lock is in the npm cache once the repository was installed.
    await runNpm(['ci', '--offline'], { cwd: checkout });
  }, 180_000);

  afterAll(async () => {
    await rm(checkout, { recursive: true, force: true });
  });

  it('answers `npx loopkeeper --help` right after `npm ci`, without a manual build', async () => {
    const help = await runNpm(['exec', '--offline', '--', 'loopkeeper', '--help'], {
      cwd: checkout,
    });
    expect(help).toContain('Usage: loopkeeper <command> [options]');
    expect(help).toMatch(/^ {2}demo /m);
  }, 60_000);
});
