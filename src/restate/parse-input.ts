import { type GenericSchema, safeParse } from 'valibot';
import { ConfigError } from '../errors/config-error.js';
import type { ToolApproval } from '../runtime/run-pause.js';
import { shapeProblems } from '../vocabulary/schemas/describe-issues.js';
import { RemoteInputSchemas } from '../vocabulary/schemas/host-input.js';
import type { SendMessageInput, TelemetryPageInput } from './loop-object-types.js';

/** `input` as `schema` outputs it, or a `ConfigError` naming the handler and every problem. */
function parsed<T extends GenericSchema>(handler: string, schema: T, input: unknown) {
  const result = safeParse(schema, input);
  if (result.success) return result.output;
  const problems = shapeProblems(schema, input, 'the input');
  throw new ConfigError(`${handler}: ${problems.join('; ')}`, { code: 'config_invalid_input' });
}

/** Checks what a remote caller sent to `send`; the content itself is checked by the loop. */
export function parseSendInput(input: unknown): SendMessageInput {
  return parsed('send', RemoteInputSchemas.send, input) as SendMessageInput;
}

export function parseTelemetryPageInput(input: unknown): Required<TelemetryPageInput> {
  return parsed('telemetry', RemoteInputSchemas.telemetry, input ?? {});
}

/**
 * Checks the envelope of what a remote caller sent to `approve`: `{decisions: [...]}` or one
 * decision. Each decision's fields are checked by `decide`, with the same typed errors as in
 * process.
 */
export function parseApproveInput(input: unknown): readonly ToolApproval[] {
  const envelope = parsed('approve', RemoteInputSchemas.approve, input);
  return ('decisions' in envelope ? envelope.decisions : [envelope]) as ToolApproval[];
}
