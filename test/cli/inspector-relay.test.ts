import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { isAllowedOrigin } from '../../src/cli/inspector/relay-origin.js';
import { type InspectorRelay, startInspectorRelay } from '../../src/cli/inspector-relay.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Opens a WebSocket as a browser page of `origin` would; resolves how the relay answered. */
function connect(
  url: string,
  origin?: string,
): Promise<{ readonly opened: boolean; readonly status?: number; readonly error?: string }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, origin === undefined ? {} : { origin });
    socket.once('open', () => {
      socket.close();
      resolve({ opened: true });
    });
    socket.once('unexpected-response', (_request, response) => {
      resolve({ opened: false, status: response.statusCode ?? 0 });
      socket.terminate();
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      resolve({ opened: false, error: error.code ?? error.message });
    });
  });
}

/** A non-loopback IPv4 address of this machine, if it has one. */
function networkAddress(): string | undefined {
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      if (entry.family === 'IPv4' && !entry.internal) return entry.address;
    }
  }
  return undefined;
}

let relay: InspectorRelay | undefined;
afterEach(() => {
  relay?.stop();
  relay = undefined;
});

describe('startInspectorRelay', () => {
  it('refuses a WebSocket upgrade from a disallowed Origin with 403 (3 origins)', async () => {
    const port = await freePort();
    relay = await startInspectorRelay({ port });
    for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'null']) {
      expect(await connect(relay.socketUrl, origin), origin).toEqual({
        opened: false,
        status: 403,
      });
    }
    expect(relay.socketUrl).toBe(`ws://127.0.0.1:${port}`);
  });

  it('accepts no Origin, loopback origins and the Stately viewer origin', async () => {
    const port = await freePort();
    relay = await startInspectorRelay({ port });
    for (const origin of [
      undefined,
      `http://localhost:${port}`,
      `http://127.0.0.1:${port}`,
      'http://[::1]:3000',
      'https://stately.ai',
    ]) {
      expect(await connect(relay.socketUrl, origin), String(origin)).toEqual({ opened: true });
    }
  });

  it.runIf(networkAddress() !== undefined)(
    'listens on 127.0.0.1 only by default: the network address refuses the connection',
    async () => {
      const port = await freePort();
      relay = await startInspectorRelay({ port });
      const outcome = await connect(`ws://${networkAddress()}:${port}`);
      expect(outcome).toEqual({ opened: false, error: 'ECONNREFUSED' });
    },
  );

  it.runIf(networkAddress() !== undefined)(
    'an explicit host widens it, and then allows page origins on that host only',
    async () => {
      const port = await freePort();
      const host = networkAddress() ?? '';
      relay = await startInspectorRelay({ port, host });
      expect(relay.socketUrl).toBe(`ws://${host}:${port}`);
      expect(await connect(relay.socketUrl)).toEqual({ opened: true });
      expect(await connect(relay.socketUrl, `http://${host}:${port}`)).toEqual({ opened: true });
      expect(await connect(relay.socketUrl, 'https://evil.example')).toEqual({
        opened: false,
        status: 403,
      });
    },
  );
});

describe('isAllowedOrigin', () => {
  it('allows exactly the documented origins', () => {
    const host = '127.0.0.1';
    const allowed = [
      undefined,
      'http://localhost:8080',
      'http://127.0.0.1',
      'https://localhost:9',
      'http://[::1]:8080',
      'https://stately.ai',
    ];
    const refused = [
      'https://evil.example',
      'http://localhost.evil.example',
      'http://127.0.0.1.nip.io',
      'https://stately.ai.evil.example',
      'http://stately.ai',
      'null',
      'file://',
      'chrome-extension://abc',
      'http://192.168.1.20:8080',
    ];
    expect(allowed.filter((origin) => !isAllowedOrigin({ origin, host }))).toEqual([]);
    expect(refused.filter((origin) => isAllowedOrigin({ origin, host }))).toEqual([]);
    expect(isAllowedOrigin({ origin: 'http://192.168.1.20:8080', host: '192.168.1.20' })).toBe(
      true,
    );
    expect(isAllowedOrigin({ origin: 'http://192.168.1.20:8080', host: '0.0.0.0' })).toBe(false);
  });
});
