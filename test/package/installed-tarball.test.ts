import { execFile } from 'node:child_process';
import { access, copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnvironment, ensureCliBuilt, packageRoot } from '../cli/support/cli-process.js';
import { npmPack, runNpm } from './support/npm-pack.js';
import { writeOfflineProject } from './support/offline-project.js';

interface Outcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `npx loopkeeper ...` in the project, offline, and collects the outcome. */
function npxLoopkeeper(args: readonly string[], cwd: string): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['exec', '--offline', '--', 'loopkeeper', ...args],
      { cwd, env: childEnvironment(), maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }),
    );
  });
}

describe('the packed tarball, installed into an empty project', () => {
  let project: string;

  beforeAll(async () => {
    await ensureCliBuilt();
    project = await mkdtemp(join(tmpdir(), 'loopkeeper-installed-'));
    const { filename } = await npmPack({ destination: project });
    await writeOfflineProject({ directory: project, tarball: join(project, filename) });
    await runNpm(['ci', '--offline'], { cwd: project });
  }, 180_000);

  afterAll(async () => {
    await rm(project, { recursive: true, force: true });
  });

  it('runs `npx loopkeeper --help`', async () => {
    const result = await npxLoopkeeper(['--help'], project);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: loopkeeper <command> [options]');
  }, 60_000);

  it('runs `npx loopkeeper demo` on the synthetic sessions, since no transcripts ship', async () => {
    const result = await npxLoopkeeper(['demo', '--json', '--dir', project], project);
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.stderr).toContain('Replaying 5 synthetic sessions as one');
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as {
      recordings: number;
      steps: number;
      compactions: unknown;
    };
    expect(summary.recordings).toBe(5);
    expect(summary.steps).toBeGreaterThan(20);
  }, 90_000);

  it('serves both entry points to an ES module host', async () => {
    const script = join(project, 'host.mjs');
    await writeFile(
      script,
      [
        "import { createAgentLoop, runTurn } from 'loopkeeper';",
        "import { ScriptedModel } from 'loopkeeper/testing';",
        "const loop = createAgentLoop({ model: new ScriptedModel({ turns: [{ text: 'hi' }] }) });",
        'loop.start();',
        "const finished = await runTurn(loop, 'hello');",
        'loop.stop();',
        'console.log(finished.outcome, finished.text);',
      ].join('\n'),
    );
    const output = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [script], { cwd: project }, (error, stdout, stderr) =>
        error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`)),
      ),
    );
    expect(output.trim()).toBe('completed hi');
    const license = await readFile(join(project, 'node_modules', 'loopkeeper', 'LICENSE'), 'utf8');
    expect(license).toMatch(/^MIT License/);
  }, 60_000);

  it('serves every subpath entry of package.json from the installed files', async () => {
    const manifest = JSON.parse(
      await readFile(join(project, 'node_modules', 'loopkeeper', 'package.json'), 'utf8'),
    ) as { exports: Record<string, unknown> };
    // The integrations need their optional peers, which this offline project does not install.
    const entries = Object.keys(manifest.exports)
      .filter(
        (entry) =>
          !['./ai-sdk', './langchain', './otel', './postgres', './restate'].includes(entry),
      )
      .map((entry) => `loopkeeper${entry.slice(1)}`);
    const script = join(project, 'entries.mjs');
    await writeFile(
      script,
      [
        `for (const entry of ${JSON.stringify(entries)}) {`,
        '  const module = await import(entry);',
        "  console.log(entry + ' ' + Object.keys(module).length);",
        '}',
      ].join('\n'),
    );
    const output = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [script], { cwd: project }, (error, stdout, stderr) =>
        error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`)),
      ),
    );
    const lines = output.trim().split('\n');
    expect(lines.map((line) => line.split(' ')[0])).toEqual(entries);
    for (const line of lines) expect(Number(line.split(' ')[1])).toBeGreaterThan(0);
  }, 60_000);

  // docs/getting-started.md says to save its example as hello.js in a "type": "module" project
  // with loopkeeper and openai installed: this project is one.
  it("runs docs/getting-started.md's first example as written, offline", async () => {
    const script = join(project, 'hello.js');
    await copyFile(join(packageRoot, 'docs', 'examples', 'getting-started.ts'), script);
    const output = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [script], { cwd: project }, (error, stdout, stderr) =>
        error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`)),
      ),
    );
    expect(output).toBe('completed in 2 steps: It is noon.\n');
  }, 60_000);

  it('installs without @statelyai/inspect, and --inspect says how to add it', async () => {
    const installed = await access(join(project, 'node_modules', '@statelyai', 'inspect')).then(
      () => true,
      () => false,
    );
    expect(installed).toBe(false);
    const result = await npxLoopkeeper(['demo', '--inspect', '--dir', project], project);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^loopkeeper demo: error: The inspector needs the optional package @statelyai\/inspect, which is not installed: run "npm install @statelyai\/inspect"/,
      ),
    ]);
  }, 60_000);
});
