/**
 * What runs again when the restate-server itself is SIGKILLed mid-turn (not a worker): each
 * round sends a turn of two tool steps to a fresh session, kills the server 100 to 900 ms in,
 * starts it again on the same data directory, and sends the same runId again to wait for the
 * turn. Counts model and tool calls that started more than once, tool effects applied more than
 * once per idempotency key, and runs finished other than once. Run with
 * `npx tsx bench/restate-crash.bench.ts [rounds]`.
 */
import type { SessionEvent } from '../src/log/events.js';
import { type Cluster, startCluster } from '../test/restate/support/cluster.js';

const rounds = Number(process.argv[2] ?? 12);
const plan = JSON.stringify({
  plan: [
    {
      delayMs: 100,
      tools: [
        { label: 'a', delayMs: 150 },
        { label: 'b', delayMs: 250 },
      ],
    },
    { delayMs: 100, tools: [{ label: 'c', delayMs: 150 }] },
    { text: 'done' },
  ],
});

async function logOf(cluster: Cluster, id: string): Promise<SessionEvent[]> {
  return [...(await cluster.session(id).log({ limit: 1000 })).events];
}

const cluster = await startCluster({ workers: 2 });
const totals = {
  rounds,
  modelCalls: 0,
  modelCallsRunAgain: 0,
  toolCalls: 0,
  toolCallsRunAgain: 0,
  finishedToolCallsRunAgain: 0,
  finishedModelCallsRunAgain: 0,
  effectsAppliedTwice: 0,
  turnsNotCompletedOnce: 0,
};
try {
  for (let round = 0; round < rounds; round += 1) {
    const id = `crash-${round}`;
    const runId = `${id}:run`;
    const before = cluster.effects().length;
    const pending = Promise.resolve(cluster.session(id).send({ content: plan, runId })).catch(
      () => undefined,
    );
    const killAt = 100 + Math.floor(Math.random() * 800);
    await new Promise((resolve) => setTimeout(resolve, killAt));
    const seenBeforeKill = cluster.effects().slice(before);
    const doneBeforeKill = new Set(
      seenBeforeKill
        .filter((line) => line[0] === 'tool' && line[1] === 'done')
        .map((line) => line[2]),
    );
    const modelsEndedBeforeKill = new Set(
      seenBeforeKill
        .filter((line) => line[0] === 'model' && line[1] === 'end')
        .map((line) => `${line[2]}/${line[3]}`),
    );
    await cluster.server.crashAndRestart();
    await pending;
    const result = await cluster.session(id).send({ content: plan, runId });
    const effects = cluster.effects().slice(before);
    const models = new Map<string, number>();
    const tools = new Map<string, { starts: number; applied: number }>();
    for (const line of effects) {
      if (line[0] === 'model' && line[1] === 'start') {
        const key = `${line[2]}/${line[3]}`;
        models.set(key, (models.get(key) ?? 0) + 1);
      }
      if (line[0] === 'tool' && (line[1] === 'start' || line[1] === 'applied')) {
        const entry = tools.get(line[2] ?? '') ?? { starts: 0, applied: 0 };
        if (line[1] === 'start') entry.starts += 1;
        else entry.applied += 1;
        tools.set(line[2] ?? '', entry);
      }
    }
    totals.modelCalls += models.size;
    for (const [key, starts] of models) {
      if (starts > 1) totals.modelCallsRunAgain += 1;
      if (starts > 1 && modelsEndedBeforeKill.has(key)) totals.finishedModelCallsRunAgain += 1;
    }
    totals.toolCalls += tools.size;
    for (const [key, { starts, applied }] of tools) {
      if (starts > 1) totals.toolCallsRunAgain += 1;
      if (starts > 1 && doneBeforeKill.has(key)) totals.finishedToolCallsRunAgain += 1;
      if (applied !== 1) totals.effectsAppliedTwice += 1;
    }
    const log = await logOf(cluster, id);
    const finished = log.filter((event) => event.type === 'run-finished');
    if (result.outcome !== 'completed' || finished.length !== 1) totals.turnsNotCompletedOnce += 1;
    process.stdout.write(`round ${round}: kill at ${killAt} ms, ${result.outcome}\n`);
  }
} finally {
  await cluster.stop();
}
console.log(JSON.stringify(totals, null, 2));
