import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopkeeperCommand } from '../../src/cli/invocation.js';

describe('loopkeeperCommand (how hints say to run loopkeeper again)', () => {
  let directory: string;
  let bin: string;
  const built = 'file:///somewhere/dist/src/cli/invocation.js';

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-invocation-'));
    bin = join(directory, 'package', 'bin', 'loopkeeper.js');
    await mkdir(join(directory, 'package', 'bin'), { recursive: true });
    await writeFile(bin, '#!/usr/bin/env node\n');
    await chmod(bin, 0o755);
    for (const folder of ['global-bin', join('project', 'node_modules', '.bin'), 'other-bin']) {
      await mkdir(join(directory, folder), { recursive: true });
    }
    await symlink(bin, join(directory, 'global-bin', 'loopkeeper'));
    await symlink(bin, join(directory, 'project', 'node_modules', '.bin', 'loopkeeper'));
    const other = join(directory, 'other-bin', 'loopkeeper');
    await writeFile(other, '#!/bin/sh\n');
    await chmod(other, 0o755);
  });

  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  const path = (...folders: string[]) => ({
    PATH: folders.map((folder) => join(directory, folder)).join(delimiter),
  });

  it('says `loopkeeper` when that command on the PATH is this package (a global install)', () => {
    expect(loopkeeperCommand({ moduleUrl: built, binPath: bin, env: path('global-bin') })).toBe(
      'loopkeeper',
    );
  });

  it('says `npx loopkeeper` for a project install, whose node_modules/.bin npm added to the PATH', () => {
    const env = path(join('project', 'node_modules', '.bin'));
    expect(loopkeeperCommand({ moduleUrl: built, binPath: bin, env })).toBe('npx loopkeeper');
  });

  it('says `npx loopkeeper` when the `loopkeeper` on the PATH is another program, or none is', () => {
    expect(loopkeeperCommand({ moduleUrl: built, binPath: bin, env: path('other-bin') })).toBe(
      'npx loopkeeper',
    );
    expect(loopkeeperCommand({ moduleUrl: built, binPath: bin, env: { PATH: '' } })).toBe(
      'npx loopkeeper',
    );
  });

  it('says how to run the sources when running from a checkout through tsx', () => {
    expect(loopkeeperCommand({ moduleUrl: 'file:///repo/src/cli/invocation.ts' })).toBe(
      'npx tsx src/cli/main.ts',
    );
  });
});
