import http2 from 'node:http2';

export interface Balancer {
  readonly url: string;
  /** Requests proxied to each target so far. */
  readonly counts: ReadonlyMap<string, number>;
  setTargets(targets: readonly string[]): void;
  close(): Promise<void>;
}

const hopHeaders = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host']);

/**
 * An h2c proxy that sends each request (each Restate invocation attempt) to the next worker,
 * round robin. Restate pins an invocation to a deployment, i.e. one address, so workers that
 * share the work stand behind one; a connection-level (L4) balancer would pin a whole HTTP/2
 * connection, and with it every invocation, to one worker.
 */
export async function startBalancer(targets: readonly string[] = []): Promise<Balancer> {
  let current = [...targets];
  let next = 0;
  const sessions = new Map<string, http2.ClientHttp2Session>();
  const counts = new Map<string, number>();
  const sessionFor = (target: string) => {
    const existing = sessions.get(target);
    if (existing !== undefined && !existing.closed && !existing.destroyed) return existing;
    const session = http2.connect(target);
    session.on('error', () => sessions.delete(target));
    session.on('close', () => sessions.delete(target));
    sessions.set(target, session);
    return session;
  };
  const server = http2.createServer();
  const incoming = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    incoming.add(session);
    session.on('close', () => incoming.delete(session));
  });
  server.on('stream', (stream: http2.ServerHttp2Stream, headers) => {
    const target = current[next++ % Math.max(1, current.length)];
    if (target === undefined) {
      stream.respond({ ':status': 503 });
      stream.end();
      return;
    }
    counts.set(target, (counts.get(target) ?? 0) + 1);
    const forwarded: http2.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(headers)) {
      if (name.startsWith(':') && name !== ':method' && name !== ':path') continue;
      if (!hopHeaders.has(name)) forwarded[name] = value;
    }
    const fail = () => {
      if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    };
    let upstream: http2.ClientHttp2Stream;
    try {
      upstream = sessionFor(target).request(forwarded);
    } catch {
      fail();
      return;
    }
    upstream.on('response', (response) => {
      const back: http2.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(response)) {
        if (name === ':status' || !(name.startsWith(':') || hopHeaders.has(name))) {
          back[name] = value;
        }
      }
      if (!stream.destroyed) stream.respond(back);
    });
    upstream.on('error', fail);
    upstream.on('close', () => {
      if (upstream.rstCode !== http2.constants.NGHTTP2_NO_ERROR) fail();
    });
    stream.on('error', () => upstream.close(http2.constants.NGHTTP2_CANCEL));
    stream.on('close', () => {
      if (!upstream.destroyed) upstream.close(http2.constants.NGHTTP2_CANCEL);
    });
    stream.pipe(upstream);
    upstream.pipe(stream);
  });
  const port = await new Promise<number>((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    setTargets(targets) {
      current = [...targets];
    },
    async close() {
      for (const session of sessions.values()) session.destroy();
      for (const session of incoming) session.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
