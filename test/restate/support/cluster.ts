import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as clients from '@restatedev/restate-sdk-clients';
import type { LoopObject, LoopObjectLimits } from 'loopkeeper/restate';
import { type Balancer, startBalancer } from './balancer.js';
import { type RestateServer, startRestateServer } from './restate-server.js';
import type { storeProbe } from './store-probe.js';
import { killWorker, startWorker, stopWorker, type Worker } from './workers.js';

/** A restate-server, N workers behind one balancer, and an ingress client, for one test file. */
export interface Cluster {
  readonly server: RestateServer;
  readonly balancer: Balancer;
  readonly workers: Worker[];
  readonly effectsFile: string;
  session(id: string): clients.IngressClient<clients.VirtualObject<LoopObject>>;
  /** The test-only `store-probe` object (see store-probe.ts) under key `id`. */
  storeProbe(id: string): clients.IngressClient<clients.VirtualObject<typeof storeProbe>>;
  /** Lines of the effects file, split into words. */
  effects(): string[][];
  /** SIGKILLs a worker and starts a fresh one in its place (new pid, new port). */
  replace(worker: Worker): Promise<Worker>;
  stop(): Promise<void>;
}

export async function startCluster({
  workers = 2,
  limits,
  compactAtTokens,
}: {
  workers?: number;
  /** The workers' `LoopObjectLimits` (the defaults when absent). */
  limits?: LoopObjectLimits;
  /** A compactor for the workers' loops, triggered at this many tokens (none when absent). */
  compactAtTokens?: number;
} = {}): Promise<Cluster> {
  const workerOptions = {
    ...(limits === undefined ? {} : { limits }),
    ...(compactAtTokens === undefined ? {} : { compactAtTokens }),
  };
  const directory = await mkdtemp(join(tmpdir(), 'loopkeeper-cluster-'));
  const effectsFile = join(directory, 'effects.log');
  const server = await startRestateServer();
  const started = await Promise.all(
    Array.from({ length: workers }, () => startWorker({ effectsFile, ...workerOptions })),
  );
  const balancer = await startBalancer(started.map((worker) => worker.url));
  await server.register(balancer.url);
  const ingress = clients.connect({ url: server.ingressUrl });
  const cluster: Cluster = {
    server,
    balancer,
    workers: started,
    effectsFile,
    session: (id) => ingress.objectClient<LoopObject>({ name: 'loopkeeper' }, id),
    storeProbe: (id) => ingress.objectClient<typeof storeProbe>({ name: 'store-probe' }, id),
    effects: () => {
      try {
        return readFileSync(effectsFile, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => line.split(' '));
      } catch {
        return [];
      }
    },
    async replace(worker) {
      await killWorker(worker);
      const fresh = await startWorker({ effectsFile, ...workerOptions });
      started.splice(started.indexOf(worker), 1, fresh);
      balancer.setTargets(started.map((each) => each.url));
      return fresh;
    },
    async stop() {
      await server.stop();
      await Promise.all(started.map(stopWorker));
      await balancer.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
  return cluster;
}

/** Polls until `check` returns a value, for waiting on a line in the effects file. */
export async function eventually<T>(check: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`not seen within ${timeoutMs} ms`);
}
