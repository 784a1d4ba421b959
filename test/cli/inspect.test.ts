import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWebSocketReceiver, type StatelyInspectionEvent } from '@statelyai/inspect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, childEnvironment, ensureCliBuilt, runLoopkeeper } from './support/cli-process.js';

function listenOnFreePort(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address !== null ? address.port : 0 });
    });
  });
}

async function freePort(): Promise<number> {
  const { server, port } = await listenOnFreePort();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('loopkeeper demo --inspect', () => {
  let directory: string;

  beforeAll(async () => {
    await ensureCliBuilt();
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-cli-inspect-'));
  }, 120_000);

  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it("starts the Stately inspector's relay, says how to connect, and publishes the loop to it", async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [binPath, 'demo', '--dir', directory, '--inspect', '--inspect-port', String(port)],
      { env: childEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const received: StatelyInspectionEvent[] = [];
    let stdout = '';
    let subscribed = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      // Connect as a viewer once the relay says where it is; it replays what it buffered.
      if (!subscribed && stdout.includes(`ws://127.0.0.1:${port}`)) {
        subscribed = true;
        createWebSocketReceiver({ server: `ws://127.0.0.1:${port}` }).subscribe((event) => {
          received.push(event);
        });
      }
    });
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    expect(stdout).toContain(`Inspector relay: ws://127.0.0.1:${port}`);
    expect(stdout).toContain(`Open http://127.0.0.1:${port} in a browser`);
    expect(stdout).toContain('Summary');
    expect(received.length).toBeGreaterThan(0);
    expect(received.some((event) => event.type === '@xstate.snapshot')).toBe(true);
  });

  it('fails with one line when the relay port is taken', async () => {
    const { server, port } = await listenOnFreePort();
    try {
      const result = await runLoopkeeper([
        'demo',
        '--dir',
        directory,
        '--inspect',
        '--inspect-port',
        String(port),
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        `loopkeeper demo: error: Port ${port} is in use; choose another with --inspect-port`,
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
