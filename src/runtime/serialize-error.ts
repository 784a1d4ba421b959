/**
 * A JSON-safe description of any thrown value, for the machine context, the log and telemetry:
 * the machine's own `serializeFailure`, so the loop and the runtime describe failures alike.
 */
export { serializeFailure as serializeError } from '../../machines/agent-loop.errors.js';
