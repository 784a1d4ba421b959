import {
  CancelledError,
  type ObjectContext,
  RestatePromise,
  TerminalError,
} from '@restatedev/restate-sdk';
import type { SerializedError } from '../vocabulary/index.js';

/** What a journaled step records: its value, or the failure it ended with, never a throw. */
export type StepOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: RecordedFailure };

/** A failure as the journal keeps it: plain JSON, rebuilt into a typed error on the way out. */
export interface RecordedFailure extends SerializedError {
  readonly details?: Readonly<Record<string, unknown>>;
}

interface PendingStep {
  readonly name: string;
  readonly action: () => Promise<StepOutcome<unknown>>;
  readonly settle: (result: PromiseSettledResult<StepOutcome<unknown>>) => void;
}

export interface DurableStepsOptions {
  readonly context: ObjectContext;
  /** Called once, when Restate delivers the cancellation that `abort` requested. */
  readonly onCancelled: () => void;
}

/**
 * Runs the loop's side effects as journaled steps (`ctx.run`), so a retried invocation gets
 * every finished step's recorded outcome instead of running it again. Steps never throw inside
 * the journal: a throw there would make Restate retry the step forever, while the loop wants a
 * model failure or a tool failure as data it can act on.
 */
export class DurableSteps {
  readonly #context: ObjectContext;
  readonly #onCancelled: () => void;
  #cancelled = false;
  #batch: PendingStep[] = [];

  constructor({ context, onCancelled }: DurableStepsOptions) {
    this.#context = context;
    this.#onCancelled = onCancelled;
  }

  get cancelled(): boolean {
    return this.#cancelled;
  }

  /**
   * A step that may be given up when the invocation is cancelled (a model call, a tool call):
   * the cancellation resolves to `undefined` and the loop is told to abort. Steps started in
   * the same turn of the event loop (parallel tool calls) are awaited together through
   * `RestatePromise.allSettled`: SDK 1.14 fails an invocation whose `ctx.run` promises are
   * awaited separately at the same time ("awaitNext already pending").
   */
  attempt<T>(
    name: string,
    action: () => Promise<StepOutcome<T>>,
  ): Promise<StepOutcome<T> | undefined> {
    return new Promise((resolve, reject) => {
      this.#batch.push({
        name,
        action,
        settle: (result) => {
          if (result.status === 'fulfilled') resolve(result.value as StepOutcome<T>);
          else if (isCancellation(result.reason)) {
            this.#noticeCancellation();
            resolve(undefined);
          } else reject(result.reason);
        },
      });
      if (this.#batch.length === 1) setImmediate(() => this.#runBatch());
    });
  }

  #runBatch(): void {
    const batch = this.#batch;
    this.#batch = [];
    const promises = batch.map(({ name, action }) => this.#context.run(name, action));
    RestatePromise.allSettled(promises).then(
      (results) => {
        for (const [index, result] of results.entries()) batch[index]?.settle(result);
      },
      (error: unknown) => {
        for (const pending of batch) pending.settle({ status: 'rejected', reason: error });
      },
    );
  }

  /**
   * A step that must be recorded even after a cancellation (a log append, a telemetry flush):
   * Restate delivers the cancellation once, so the step is issued again and then completes.
   */
  async record<T>(name: string, action: () => Promise<StepOutcome<T>>): Promise<StepOutcome<T>> {
    try {
      return await this.#context.run(name, action);
    } catch (error) {
      if (!isCancellation(error)) throw error;
      this.#noticeCancellation();
      return await this.#context.run(`${name} (after abort)`, action);
    }
  }

  #noticeCancellation(): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    this.#onCancelled();
  }
}

function isCancellation(error: unknown): boolean {
  return error instanceof CancelledError || (error instanceof TerminalError && error.code === 409);
}
