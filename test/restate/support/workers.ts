import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoopObjectLimits } from 'loopkeeper/restate';
import { freePort } from './free-port.js';
import { stopChild } from './restate-server.js';

export interface Worker {
  readonly url: string;
  readonly pid: number;
  readonly process: ChildProcess;
}

const workerScript = fileURLToPath(new URL('./worker.ts', import.meta.url));

/**
 * Starts a worker process (tsx) serving the loopkeeper object, with `limits` as its
 * `LoopObjectLimits` when given; resolves once it listens.
 */
export async function startWorker({
  effectsFile,
  limits,
  compactAtTokens,
}: {
  effectsFile?: string;
  limits?: LoopObjectLimits;
  /** Gives the loop a compactor whose token budget trigger fires at this many tokens. */
  compactAtTokens?: number;
} = {}): Promise<Worker> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', workerScript], {
    env: {
      ...process.env,
      PORT: String(port),
      EFFECTS_FILE: effectsFile ?? '',
      LOOP_LIMITS: limits === undefined ? '' : JSON.stringify(limits),
      LOOP_COMPACT_AT: compactAtTokens === undefined ? '' : String(compactAtTokens),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-5_000);
    if (process.env['WORKER_LOG']) process.stderr.write(chunk);
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start: ${errors}`)), 20_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code}: ${errors}`));
    });
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid ?? 0, process: child };
}

export function stopWorker(worker: Worker): Promise<void> {
  return stopChild(worker.process);
}

/** Kills the worker at once, as a crash would: no cleanup runs in it. */
export function killWorker(worker: Worker): Promise<void> {
  return stopChild(worker.process, 'SIGKILL');
}
