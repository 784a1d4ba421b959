import { execFile, spawn } from 'node:child_process';
import { mkdir, readdir, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: this file lives in test/cli/support. */
export const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const binPath = join(packageRoot, 'bin', 'loopkeeper.js');
const builtEntry = join(packageRoot, 'dist', 'src', 'cli', 'main.js');
const lockPath = join(packageRoot, 'dist', '.cli-test-build.lock');

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Builds dist/ afresh with `tsc -p tsconfig.build.json` unless it is newer than every source file.
 * Test files run in parallel processes, so a lock directory (mkdir is atomic) makes one of
 * them build while the others wait and then find the build fresh.
 */
export async function ensureCliBuilt(): Promise<void> {
  await mkdir(join(packageRoot, 'dist'), { recursive: true });
  await acquireLock();
  try {
    if (await isBuildFresh()) return;
    // A clean rebuild, so output of deleted sources or of older settings (source maps) is gone.
    await Promise.all(
      ['src', 'machines'].map((folder) =>
        rm(join(packageRoot, 'dist', folder), { recursive: true, force: true }),
      ),
    );
    const output = await new Promise<string>((resolve) => {
      execFile(
        process.execPath,
        [
          join(packageRoot, 'node_modules', 'typescript', 'bin', 'tsc'),
          '-p',
          'tsconfig.build.json',
        ],
        { cwd: packageRoot },
        (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
      );
    });
    // Type errors in files other people are still writing do not stop tsc from emitting; the
    // CLI tests only need the CLI to be there, and type checking has its own step.
    if (!(await isBuildFresh())) throw new Error(`tsc did not build ${builtEntry}:\n${output}`);
  } finally {
    await rmdir(lockPath).catch(() => undefined);
  }
}

async function acquireLock(): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      await mkdir(lockPath);
      return;
    } catch {
      const age = await stat(lockPath).then(
        (info) => Date.now() - info.mtimeMs,
        () => 0,
      );
      // A lock left by a killed test run would otherwise block every later run.
      if (age > 60_000) await rm(lockPath, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${lockPath}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function isBuildFresh(): Promise<boolean> {
  const built = await stat(builtEntry).then(
    (info) => info.mtimeMs,
    () => undefined,
  );
  if (built === undefined) return false;
  const newest = Math.max(
    await newestModification(join(packageRoot, 'src')),
    await newestModification(join(packageRoot, 'machines')),
    (await stat(join(packageRoot, 'tsconfig.build.json'))).mtimeMs,
  );
  return built >= newest;
}

async function newestModification(directory: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const info = await stat(join(entry.parentPath, entry.name));
    newest = Math.max(newest, info.mtimeMs);
  }
  return newest;
}

/** The environment of a child: no OpenAI settings leak in from the developer's shell. */
export function childEnvironment(overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { OPENAI_API_KEY: _key, OPENAI_BASE_URL: _url, ...rest } = process.env;
  return { ...rest, ...overrides };
}

/**
 * Runs the built `bin/loopkeeper.js` as a child process and collects its output; `input`, when
 * given, is piped to its stdin; either way stdin ends (it is a pipe, never a terminal).
 */
export function runLoopkeeper(
  args: readonly string[],
  {
    env = childEnvironment(),
    cwd = packageRoot,
    input,
  }: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binPath, ...args], {
      cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // A child that exits before reading its input closes the pipe; that is not a test failure.
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
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
  });
}
