import { AbortedError } from '../../errors/aborted-error.js';
import { CompactionError } from '../../errors/compaction-error.js';
import type { Item } from '../../transcript/types.js';
import { describeThrown } from '../../vocabulary/index.js';
import { validateSummaryText } from '../summary.js';
import type { CompactingLoop, CompactionBackend, SummaryResult } from '../types.js';

export interface CallSummaryBackendOptions {
  readonly backend: CompactionBackend;
  readonly transcript: readonly Item[];
  readonly previousSummary?: string | undefined;
  readonly instructions?: string | undefined;
  /** The summary's cap, handed to the backend as a hint. */
  readonly maxTokens?: number | undefined;
  /** The caller's signal: its abort ends the call with an `AbortedError`. */
  readonly signal: AbortSignal;
  /** Ends the call with a `CompactionError` (code `summary_timeout`) when it takes longer. */
  readonly timeoutMs?: number | undefined;
  /** The loop that compacts, handed to the backend (see `CompactingLoop`). */
  readonly loop?: CompactingLoop | undefined;
}

/** Settles with `promise`, or rejects as soon as `signal` aborts, whichever comes first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function describe(error: unknown): string {
  return describeThrown(error).message;
}

/**
 * One backend call with the guarantees compaction relies on: it ends at the timeout or abort
 * even when the backend ignores its signal, and every failure (a throw, a timeout, empty or
 * sectionless text) comes back as a `CompactionError` with the cause attached, so the caller
 * can fall back to the emergency prune.
 */
export async function callSummaryBackend({
  backend,
  transcript,
  previousSummary,
  instructions,
  maxTokens,
  signal,
  timeoutMs,
  loop,
}: CallSummaryBackendOptions): Promise<SummaryResult> {
  if (signal.aborted) {
    throw new AbortedError('The summary was aborted before it started', { cause: signal.reason });
  }
  const timeout = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
  const callSignal = timeout === undefined ? signal : AbortSignal.any([signal, timeout]);
  const pending = Promise.resolve().then(() =>
    backend.summarize({
      transcript,
      signal: callSignal,
      ...(previousSummary === undefined ? {} : { previousSummary }),
      ...(maxTokens === undefined ? {} : { maxTokens }),
      ...(instructions === undefined ? {} : { instructions }),
      ...(loop === undefined ? {} : { loop }),
    }),
  );
  // A backend that answers after we gave up must not surface as an unhandled rejection.
  pending.catch(() => undefined);

  let result: SummaryResult;
  try {
    result = await untilAborted(pending, callSignal);
  } catch (error) {
    if (signal.aborted) {
      throw new AbortedError('The summary was aborted', { cause: signal.reason });
    }
    if (timeout?.aborted) {
      throw new CompactionError(
        `The summarizer ${backend.name} did not answer within ${timeoutMs} ms`,
        { cause: error, code: 'summary_timeout' },
      );
    }
    throw new CompactionError(`The summarizer ${backend.name} failed: ${describe(error)}`, {
      cause: error,
      code: CompactionError.isInstance(error) ? error.code : 'summary_failed',
    });
  }

  try {
    return { ...result, text: validateSummaryText(result?.text) };
  } catch (error) {
    throw new CompactionError(
      `The summarizer ${backend.name} returned a rejected summary: ${describe(error)}`,
      { cause: error, code: 'summary_rejected' },
    );
  }
}
