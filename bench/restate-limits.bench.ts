/**
 * The Restate object's per-session costs, on a real restate-server with one worker:
 * 1. milliseconds per `send` (an echo turn, 5 events) when the log holds about 200 and about
 *    2,400 events (median of 20 sends each), without a compactor (the history, and with it the
 *    model's request, grows with the log) and with one triggered at 2,000 tokens;
 * 2. 1 MB messages sent until a send is refused or does not settle within 10 s, then how long
 *    `log({limit: 1})`, `history()`, `abort()` and a small `send` take (10 s cap each).
 * Run with `npx tsx bench/restate-limits.bench.ts`.
 */
import { startCluster } from '../test/restate/support/cluster.js';

type Settled = { ms: number; outcome: string };

async function timed(work: () => PromiseLike<unknown>, capMs = 10_000): Promise<Settled> {
  const started = performance.now();
  const outcome = await Promise.race([
    Promise.resolve(work()).then(
      () => 'ok',
      (error: unknown) => `refused: ${String(error).split('\n')[1]?.slice(0, 160) ?? error}`,
    ),
    new Promise<string>((resolve) => setTimeout(() => resolve('no answer'), capMs)),
  ]);
  return { ms: Math.round(performance.now() - started), outcome };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

/** Median ms per echo `send` once the session's log reaches each target length. */
async function perSend(compactAtTokens: number | undefined): Promise<void> {
  const cluster = await startCluster({
    workers: 1,
    ...(compactAtTokens === undefined ? {} : { compactAtTokens }),
  });
  const label =
    compactAtTokens === undefined ? 'no compactor' : `compactor at ${compactAtTokens} tokens`;
  try {
    const session = cluster.session('bench-length');
    await session.send({ content: 'warm up' });
    for (const target of (process.env['TARGETS'] ?? '200,2400').split(',').map(Number)) {
      while ((await session.log({ fromSeq: target, limit: 1 })).events.length === 0) {
        await session.send({ content: 'grow' });
      }
      const times: number[] = [];
      for (let index = 0; index < 20; index += 1) {
        times.push((await timed(() => session.send({ content: 'measure' }))).ms);
      }
      const history = (await session.history()).length;
      console.log(
        `${label}, ~${target} events: ${median(times)} ms per send (median of 20), ${history} items in the history`,
      );
    }
  } finally {
    await cluster.stop();
  }
}

const modes = (process.env['PER_SEND'] ?? 'plain,compacted').split(',');
if (modes.includes('plain')) await perSend(undefined);
if (modes.includes('compacted')) await perSend(2_000);
if (process.env['SKIP_BIG']) process.exit(0);

const cluster = await startCluster({ workers: 1 });
try {
  const big = cluster.session('bench-big');
  const megabyte = 'x'.repeat(1_000_000);
  let sends = 0;
  for (;;) {
    const { ms, outcome } = await timed(() => big.send({ content: `${sends} ${megabyte}` }));
    console.log(`1 MB send ${sends + 1}: ${outcome} in ${ms} ms`);
    if (outcome !== 'ok') break;
    sends += 1;
  }
  for (const [name, work] of [
    ['log({limit: 1})', () => big.log({ limit: 1 })],
    ['history()', () => big.history()],
    ['abort()', () => big.abort()],
    ['small send', () => big.send({ content: 'small' })],
  ] as const) {
    const { ms, outcome } = await timed(work);
    console.log(`after: ${name}: ${outcome} in ${ms} ms`);
  }
} finally {
  await cluster.stop();
}
