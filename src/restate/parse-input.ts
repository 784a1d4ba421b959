import { ConfigError } from '../errors/config-error.js';
import type { ToolApproval } from '../runtime/run-pause.js';
import { isRecord } from '../transcript/describe-value.js';
import type { ApproveInput, SendMessageInput, TelemetryPageInput } from './loop-object-types.js';

const MAX_PAGE = 1000;

/** Checks what a remote caller sent to `send`; the content itself is checked by the loop. */
export function parseSendInput(input: unknown): SendMessageInput {
  if (!isRecord(input) || !('content' in input)) {
    throw new ConfigError('send expects {content, runId?}', { code: 'config_invalid_input' });
  }
  const { content, runId } = input as { content: SendMessageInput['content']; runId?: unknown };
  if (runId !== undefined && (typeof runId !== 'string' || runId === '')) {
    throw new ConfigError('send: runId must be a non-empty string when given', {
      code: 'config_invalid_input',
    });
  }
  return runId === undefined ? { content } : { content, runId };
}

export function parseTelemetryPageInput(input: unknown): Required<TelemetryPageInput> {
  const { fromSeq = 1, limit = 100 } = (isRecord(input) ? input : {}) as TelemetryPageInput;
  if (!Number.isInteger(fromSeq) || fromSeq < 1) {
    throw new ConfigError(`telemetry: fromSeq must be an integer >= 1, got ${fromSeq}`, {
      code: 'config_invalid_input',
    });
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
    throw new ConfigError(
      `telemetry: limit must be an integer from 1 to ${MAX_PAGE}, got ${limit}`,
      {
        code: 'config_invalid_input',
      },
    );
  }
  return { fromSeq, limit };
}

/**
 * Checks the envelope of what a remote caller sent to `approve`: `{decisions: [...]}` or one
 * decision. Each decision's fields are checked by `decide`, with the same typed errors as in
 * process.
 */
export function parseApproveInput(input: unknown): readonly ToolApproval[] {
  if (isRecord(input) && Array.isArray(input['decisions'])) {
    return (input as unknown as ApproveInput).decisions;
  }
  if (isRecord(input) && 'callId' in input) return [input as unknown as ToolApproval];
  throw new ConfigError('approve expects {decisions: [{callId, approved, reason?}]}', {
    code: 'config_invalid_input',
  });
}
