import { connect, createServer } from 'node:net';
import type { createWebSocketInspector } from '@statelyai/inspect';
import type { InspectionEvent, Observer } from 'xstate';
import { ConfigError } from '../errors/config-error.js';
import { DEFAULT_INSPECTOR_PORT } from './inspector-port.js';
import { loadInspector } from './load-inspector.js';

/** The Stately inspector's local relay and a loop-side inspector connected to it. */
export interface InspectorRelay {
  /** The WebSocket the loop publishes to and viewers subscribe to. */
  readonly socketUrl: string;
  /** The page that embeds the Stately viewer and forwards the relay's events to it. */
  readonly pageUrl: string;
  /** Give this to `createAgentLoop({inspect})`. */
  readonly inspect: Observer<InspectionEvent>;
  /** The inspector itself, to publish actors, events and snapshots that no live actor makes. */
  readonly inspector: ReturnType<typeof createWebSocketInspector>;
  stop(): void;
}

/**
 * Starts `@statelyai/inspect`'s WebSocket relay on `port` and connects an inspector to it. The
 * relay's own server has no error handler, so a port already in use would crash the process:
 * the port is checked first and refused with a clear `ConfigError`.
 */
export async function startInspectorRelay({
  port = DEFAULT_INSPECTOR_PORT,
  portFlag = '--inspect-port',
}: {
  port?: number;
  /** The command-line flag that chooses the port, named when the port is taken. */
  portFlag?: string;
} = {}): Promise<InspectorRelay> {
  const { client, server: relayModule } = await loadInspector();
  await assertPortFree(port, portFlag);
  const server = relayModule.createInspectorServer({ port, autoOpen: false });
  await waitUntilListening(port);
  const socketUrl = `ws://localhost:${port}`;
  const inspector = client.createWebSocketInspector({ url: socketUrl });
  return {
    socketUrl,
    pageUrl: `http://localhost:${port}`,
    inspect: inspector.inspect as Observer<InspectionEvent>,
    inspector,
    stop() {
      inspector.stop();
      server.stop();
    },
  };
}

function assertPortFree(port: number, portFlag: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new ConfigError(
          error.code === 'EADDRINUSE'
            ? `Port ${port} is in use; choose another with ${portFlag}`
            : `Cannot listen on port ${port} for the inspector: ${error.message}`,
          { code: 'inspector_port', cause: error },
        ),
      );
    });
    probe.listen(port, () => probe.close(() => resolve()));
  });
}

/** Resolves once something accepts connections on the port (the relay listens asynchronously). */
async function waitUntilListening(port: number, attempts = 100): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ port, host: 'localhost' });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new ConfigError(`The inspector relay did not start listening on port ${port}`, {
    code: 'inspector_port',
  });
}
