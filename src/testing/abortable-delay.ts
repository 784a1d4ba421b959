/**
 * Waits `milliseconds` (forever when `Infinity`). Resolves `true` when the time passed and `false`
 * as soon as `signal` aborts, so fakes can stop the moment their client goes away.
 */
export function abortableDelay({
  milliseconds,
  signal,
}: {
  milliseconds: number;
  signal: AbortSignal;
}): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (milliseconds <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = () => {
      if (timer !== undefined) clearTimeout(timer);
      resolve(false);
    };
    const timer = Number.isFinite(milliseconds)
      ? setTimeout(() => {
          signal.removeEventListener('abort', onAbort);
          resolve(true);
        }, milliseconds)
      : undefined;
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
