import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface KillChildOptions {
  /** A TypeScript file under test/support, run with `node --import tsx`. */
  readonly script: string;
  readonly args: readonly string[];
  /**
   * Called with each line the child prints; call `kill()` when the child should die. The
   * promise resolves once the killed child has exited (its pid is then gone, so a lock it held
   * counts as stale).
   */
  readonly onLine: (line: string, kill: (delayMs?: number) => void) => void;
}

/** Runs a child process and SIGKILLs it when `onLine` says so; rejects if it exits on its own. */
export function runChildUntilKilled({ script, args, onLine }: KillChildOptions): Promise<void> {
  const path = fileURLToPath(new URL(script, import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path, ...args], {
      cwd: repositoryRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let pending = '';
    let stderr = '';
    let killed = false;
    const kill = (delayMs = 0) => {
      if (killed) return;
      killed = true;
      setTimeout(() => child.kill('SIGKILL'), delayMs);
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) onLine(line, kill);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL' && killed) resolve();
      else reject(new Error(`${script} exited early (code ${code}, signal ${signal}): ${stderr}`));
    });
  });
}
