import { performance } from 'node:perf_hooks';

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] as number;
}

/** Milliseconds one call takes, with its result. */
export async function timed<T>(
  work: () => T | Promise<T>,
): Promise<{ readonly result: T; readonly milliseconds: number }> {
  const started = performance.now();
  const result = await work();
  return { result, milliseconds: performance.now() - started };
}

/** The median of `repeats` timed calls, with the last result. */
export async function timedMedian<T>(
  work: () => T | Promise<T>,
  { repeats }: { readonly repeats: number },
): Promise<{ readonly result: T; readonly milliseconds: number }> {
  const times: number[] = [];
  let result: T | undefined;
  for (let run = 0; run < Math.max(1, repeats); run += 1) {
    const measured = await timed(work);
    times.push(measured.milliseconds);
    result = measured.result;
  }
  return { result: result as T, milliseconds: median(times) };
}

/** Milliseconds as a short human figure: µs under a millisecond, s over ten seconds. */
export function formatMilliseconds(milliseconds: number): string {
  if (!Number.isFinite(milliseconds)) return 'n/a';
  if (milliseconds < 1) return `${(milliseconds * 1000).toFixed(milliseconds < 0.01 ? 2 : 0)} µs`;
  if (milliseconds < 10) return `${milliseconds.toFixed(2)} ms`;
  if (milliseconds < 10_000) return `${milliseconds.toFixed(0)} ms`;
  return `${(milliseconds / 1000).toFixed(1)} s`;
}

export function formatCount(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a';
}

export function formatRatio(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value >= 10 ? `${value.toFixed(0)}×` : `${value.toFixed(1)}×`;
}

export function formatPercent(value: number): string {
  return Number.isFinite(value) ? `${(value * 100).toFixed(1)}%` : 'n/a';
}

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'n/a';
  if (Math.abs(bytes) < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (Math.abs(bytes) < 1024 ** 3) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}
