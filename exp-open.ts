import { startCluster } from './test/restate/support/cluster.js';
process.env['WORKER_LOG'] = '1'; process.env['PROBE_LOG'] = '1';
const cluster = await startCluster({ workers: 1 });
try {
  const probe = cluster.storeProbe('x');
  await probe.append({ events: [{ type: 'run-started', runId: 'r1' }, { type: 'items-appended', runId: 'r1', items: [{ kind: 'user', id: 'u1', content: 'hi' }] }, { type: 'run-finished', runId: 'r1', outcome: 'completed', steps: 1 }] as never, expectedSeq: 0 });
  const t = Date.now();
  console.log(await probe.openCost(), Date.now() - t);
} finally { await cluster.stop(); }
