import { LoopkeeperError } from '../errors/loopkeeper-error.js';
import type { SerializedError } from './telemetry-events.js';

/** A JSON-safe description of any thrown value, for the machine context, the log and telemetry. */
export function serializeError(error: unknown): SerializedError {
  if (LoopkeeperError.isInstance(error)) {
    return { name: error.name, code: error.code, message: error.message };
  }
  if (error instanceof Error) {
    return { name: error.name, code: 'unexpected', message: error.message };
  }
  return { name: 'Error', code: 'unexpected', message: String(error) };
}
