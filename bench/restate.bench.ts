/**
 * Throughput of the loopkeeper Restate object: turns per second with the scripted plan model
 * (echo answers, no delay) for 1, 2 and 4 worker processes behind one balancer, on a real
 * restate-server from the npm package. Run with `npx tsx bench/restate.bench.ts`.
 */
import { type Cluster, startCluster } from '../test/restate/support/cluster.js';
import { restateServerBinary } from '../test/restate/support/restate-server.js';

const SESSIONS = 40;
const TURNS_PER_SESSION = 5;

interface Row {
  readonly workers: number;
  readonly turns: number;
  readonly seconds: number;
  readonly turnsPerSecond: number;
}

/** SESSIONS sessions in parallel, each sending TURNS_PER_SESSION messages one after another. */
async function measure(cluster: Cluster, workers: number): Promise<Row> {
  const prefix = `bench-${workers}-${Date.now()}`;
  // Warm up: every worker loads its token counter once.
  await Promise.all(
    Array.from({ length: workers * 2 }, (_, index) =>
      cluster.session(`${prefix}-warm-${index}`).send({ content: 'warm up' }),
    ),
  );
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SESSIONS }, async (_, index) => {
      const session = cluster.session(`${prefix}-${index}`);
      for (let turn = 0; turn < TURNS_PER_SESSION; turn += 1) {
        const result = await session.send({ content: `turn ${turn}` });
        if (result.outcome !== 'completed') throw new Error(`turn failed: ${result.outcome}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const turns = SESSIONS * TURNS_PER_SESSION;
  return { workers, turns, seconds, turnsPerSecond: turns / seconds };
}

const binary = restateServerBinary();
if ('missing' in binary) {
  console.error(`No restate-server binary: ${binary.missing}`);
  process.exit(1);
}
const rows: Row[] = [];
for (const workers of [1, 2, 4]) {
  const cluster = await startCluster({ workers });
  try {
    rows.push(await measure(cluster, workers));
  } finally {
    await cluster.stop();
  }
}
console.log(
  `${SESSIONS} sessions × ${TURNS_PER_SESSION} turns, scripted model, one restate-server`,
);
console.log('| workers | turns | seconds | turns/s |');
console.log('|--:|--:|--:|--:|');
for (const row of rows) {
  console.log(
    `| ${row.workers} | ${row.turns} | ${row.seconds.toFixed(2)} | ${row.turnsPerSecond.toFixed(1)} |`,
  );
}
