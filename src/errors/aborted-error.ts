import { hasMarker, LoopkeeperError } from './loopkeeper-error.js';

const marker = Symbol.for('loopkeeper.error.aborted');

/** The run was aborted by the host. */
export class AbortedError extends LoopkeeperError {
  readonly [marker] = true;

  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(options?.code ?? 'aborted', message, options);
    this.name = 'AbortedError';
  }

  static override isInstance(value: unknown): value is AbortedError {
    return hasMarker(value, marker);
  }
}
