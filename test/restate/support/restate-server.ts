import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from './free-port.js';

export interface RestateServer {
  readonly ingressUrl: string;
  readonly adminUrl: string;
  /** Registers (or re-registers) the deployment at `uri` and waits until it is usable. */
  register(uri: string): Promise<void>;
  /** SIGKILLs the server, as a crash would, then starts it again on the same data and ports. */
  crashAndRestart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Where the npm package `@restatedev/restate-server` put the binary for this machine, or why
 * there is none (the platform package is an optional dependency and may be missing).
 */
export function restateServerBinary(): { path: string } | { missing: string } {
  const name = `@restatedev/restate-server-${platform()}-${arch()}`;
  try {
    const root = dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
    const path = join(root, 'bin', 'restate-server');
    return existsSync(path) ? { path } : { missing: `${path} does not exist` };
  } catch {
    return {
      missing: `the npm package ${name} is not installed (npm ci installs it on ${platform()}-${arch()})`,
    };
  }
}

/** Starts a throwaway Restate server on loopback with free ports and its own data directory. */
export async function startRestateServer(): Promise<RestateServer> {
  const binary = restateServerBinary();
  if ('missing' in binary) throw new Error(`No restate-server binary: ${binary.missing}`);
  const [ingress, admin, node] = [await freePort(), await freePort(), await freePort()];
  const baseDir = await mkdtemp(join(tmpdir(), 'loopkeeper-restate-'));
  const env = {
    PATH: process.env['PATH'] ?? '',
    RESTATE_DISABLE_TELEMETRY: 'true',
    RESTATE_BIND_IP: '127.0.0.1',
    RESTATE_ADVERTISED_HOST: '127.0.0.1',
    RESTATE_LISTEN_MODE: 'tcp',
    RESTATE_BASE_DIR: baseDir,
    RESTATE_BIND_PORT: String(node),
    RESTATE_ADMIN__BIND_PORT: String(admin),
    RESTATE_INGRESS__BIND_PORT: String(ingress),
    RESTATE_LOG_FILTER: 'warn',
  };
  const ingressUrl = `http://127.0.0.1:${ingress}`;
  const adminUrl = `http://127.0.0.1:${admin}`;
  const launch = async (): Promise<ChildProcess> => {
    const child = spawn(binary.path, ['--no-logo'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    try {
      await waitFor(async () => (await fetch(`${adminUrl}/health`)).ok, child, 30_000);
      await waitFor(async () => (await fetch(`${ingressUrl}/restate/health`)).ok, child, 30_000);
    } catch (error) {
      await stopChild(child);
      throw new Error(`restate-server did not start: ${String(error)}\n${output}`);
    }
    return child;
  };
  let child: ChildProcess;
  try {
    child = await launch();
  } catch (error) {
    await rm(baseDir, { recursive: true, force: true });
    throw error;
  }
  return {
    ingressUrl,
    adminUrl,
    async register(uri) {
      const response = await fetch(`${adminUrl}/deployments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ uri, force: true }),
      });
      if (!response.ok) {
        throw new Error(`Registering ${uri} failed: ${response.status} ${await response.text()}`);
      }
    },
    async crashAndRestart() {
      await stopChild(child, 'SIGKILL');
      child = await launch();
    },
    async stop() {
      await stopChild(child);
      await rm(baseDir, { recursive: true, force: true });
    },
  };
}

async function waitFor(
  check: () => Promise<boolean>,
  child: ChildProcess,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`);
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not ready after ${timeoutMs} ms`);
}

export async function stopChild(
  child: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
