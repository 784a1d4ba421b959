/**
 * Aborts `signal` when `touch()` has not been called for `milliseconds`. The SDK's own timeout
 * ends once response headers arrive, so a stream that stalls afterwards needs this guard.
 */
export class IdleTimeout {
  readonly signal: AbortSignal;
  readonly milliseconds: number;
  #controller = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor({ milliseconds }: { milliseconds: number }) {
    this.milliseconds = milliseconds;
    this.signal = this.#controller.signal;
  }

  get fired(): boolean {
    return this.signal.aborted;
  }

  /** Starts the wait, or starts it over after progress. */
  touch(): void {
    this.stop();
    this.#timer = setTimeout(() => this.#controller.abort(), this.milliseconds);
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
