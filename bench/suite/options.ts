/** How big each benchmark runs: the full run (about ten minutes on 2 cores) or `--quick`. */
export interface BenchScale {
  readonly quick: boolean;
  /** Tool calls in the long session of the per-step and compaction benchmarks. */
  readonly toolCalls: number;
  /** Tokens of the shorter transcript the compaction pass also runs on. */
  readonly compactionTokens: number;
  /** Steps in the start and in the end window of the per-step benchmark. */
  readonly windowSteps: number;
  /** Points along the session where every contender is measured for the chart. */
  readonly chartPoints: number;
  /** Repeats of one measurement where a single run would be noisy. */
  readonly repeats: number;
  /** Steps every contender of the per-step benchmark runs before it is measured. */
  readonly warmUpSteps: number;
  /** After those steps, each peer runs at least this many more times, and for this long. */
  readonly warmUpRuns: number;
  readonly warmUpMilliseconds: number;
  /** Steps of the billed-token replay. */
  readonly billingSteps: number;
  readonly actors: number;
  readonly itemsPerActor: number;
  /** Items written to the file-store session that is then opened and resumed. */
  readonly fileItems: number;
  /** A compaction marker is written after every this many items. */
  readonly fileMarkerEvery: number;
}

export function benchScale({
  argv = process.argv.slice(2),
}: {
  argv?: readonly string[];
} = {}): BenchScale {
  const quick = argv.includes('--quick');
  return quick
    ? {
        quick,
        toolCalls: 500,
        compactionTokens: 200_000,
        windowSteps: 10,
        chartPoints: 6,
        repeats: 1,
        warmUpSteps: 200,
        warmUpRuns: 200,
        warmUpMilliseconds: 500,
        billingSteps: 500,
        actors: 200,
        itemsPerActor: 50,
        fileItems: 10_000,
        fileMarkerEvery: 2_000,
      }
    : {
        quick,
        toolCalls: 2_000,
        compactionTokens: 200_000,
        windowSteps: 40,
        chartPoints: 16,
        repeats: 5,
        warmUpSteps: 300,
        warmUpRuns: 1_000,
        warmUpMilliseconds: 2_000,
        billingSteps: 500,
        actors: 1_000,
        itemsPerActor: 50,
        fileItems: 100_000,
        fileMarkerEvery: 5_000,
      };
}
