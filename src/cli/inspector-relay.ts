import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { createWebSocketInspector } from '@statelyai/inspect';
import { WebSocket, WebSocketServer } from 'ws';
import type { InspectionEvent, Observer } from 'xstate';
import { CommandError } from './command-error.js';
import {
  DEFAULT_INSPECTOR_HOST,
  isAllowedOrigin,
  STATELY_VIEWER_ORIGIN,
} from './inspector/relay-origin.js';
import { viewerPage } from './inspector/viewer-page.js';
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

/** Events kept for a viewer that connects late, as `@statelyai/inspect`'s own relay keeps. */
const KEPT_EVENTS = 200;

/**
 * Starts a WebSocket relay for the Stately inspector on `host:port` (loopback by default) and
 * connects an inspector to it. It works like `@statelyai/inspect/server` (a page that frames the
 * Stately viewer; every message a client sends goes to every other client, and the last 200 to
 * a late one) but listens on one host only and refuses WebSocket upgrades from web pages of
 * other origins (see `isAllowedOrigin`). A port in use is a `CommandError`.
 */
export async function startInspectorRelay({
  port = DEFAULT_INSPECTOR_PORT,
  host = DEFAULT_INSPECTOR_HOST,
  portFlag = '--inspect-port',
}: {
  port?: number;
  host?: string;
  /** The command-line flag that chooses the port, named when the port is taken. */
  portFlag?: string;
} = {}): Promise<InspectorRelay> {
  // An optional peer dependency: loaded only when an inspector is asked for.
  const { client } = await loadInspector();
  const urlHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  // The page's own script connects back to the host it was loaded from.
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(viewerPage({ viewerUrl: `${STATELY_VIEWER_ORIGIN}/inspect` }));
  });
  const sockets = new WebSocketServer({
    server,
    verifyClient: (
      { req }: { req: IncomingMessage },
      decide: (allowed: boolean, status?: number, reason?: string) => void,
    ) => {
      if (isAllowedOrigin({ origin: req.headers.origin, host })) decide(true);
      else decide(false, 403, 'Origin not allowed');
    },
  });
  // `ws` passes the server's own errors on; `listen` below reports them, typed.
  sockets.on('error', () => undefined);
  const kept: string[] = [];
  sockets.on('connection', (socket) => {
    for (const message of kept) socket.send(message);
    socket.on('message', (data) => {
      const message = data.toString();
      kept.push(message);
      if (kept.length > KEPT_EVENTS) kept.shift();
      for (const client of sockets.clients) {
        if (client !== socket && client.readyState === WebSocket.OPEN) client.send(message);
      }
    });
  });
  await listen({ server, port, host, portFlag });
  const connectHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : urlHost;
  const socketUrl = `ws://${connectHost}:${port}`;
  const inspector = client.createWebSocketInspector({ url: socketUrl });
  return {
    socketUrl,
    pageUrl: `http://${connectHost}:${port}`,
    inspect: inspector.inspect as Observer<InspectionEvent>,
    inspector,
    stop() {
      inspector.stop();
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      server.close();
    },
  };
}

function listen({
  server,
  port,
  host,
  portFlag,
}: {
  readonly server: Server;
  readonly port: number;
  readonly host: string;
  readonly portFlag: string;
}): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new CommandError(
          error.code === 'EADDRINUSE'
            ? `Port ${port} is in use; choose another with ${portFlag}`
            : `Cannot listen on ${host}:${port} for the inspector: ${error.message}`,
          { code: 'inspector_port', cause: error },
        ),
      );
    });
    server.listen(port, host, () => resolve());
  });
}
