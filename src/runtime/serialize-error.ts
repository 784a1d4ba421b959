import { describeThrown } from '../errors/describe-thrown.js';
import { LoopkeeperError } from '../errors/loopkeeper-error.js';
import type { SerializedError } from './telemetry-events.js';

/**
 * A JSON-safe description of any thrown value, for the machine context, the log and telemetry.
 * Total: a hostile value (a throwing getter, a Proxy) is described, never rethrown. The actors
 * wrap what they throw in typed errors, so `unexpected` marks a path nobody typed yet.
 */
export function serializeError(error: unknown): SerializedError {
  try {
    if (LoopkeeperError.isInstance(error)) {
      const { name, message } = describeThrown(error);
      const code = error.code;
      return { name, code: typeof code === 'string' ? code : 'unexpected', message };
    }
  } catch {
    // A Proxy that throws on `in`: not one of ours, described below.
  }
  const { name, message } = describeThrown(error);
  return { name, code: 'unexpected', message };
}
