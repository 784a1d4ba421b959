import { ModelError, type ModelErrorKind } from '../errors/model-error.js';
import { classifyModelError } from '../model/classify-error.js';
import type { ModelAdapter, ModelRequest, ModelResponse } from '../model/types.js';
import type { DurableSteps, StepOutcome } from './durable-steps.js';
import { describeBytes } from './limits.js';

/**
 * Wraps a model so each `generate` is one journaled step: a retried invocation gets the
 * recorded answer (or the recorded failure) back and the provider is not asked again. Text
 * deltas stream only from the attempt that really calls the model. An answer over
 * `maxAnswerBytes` is recorded as a `model_invalid_response` failure instead of journaled.
 */
export function durableModel({
  model,
  steps,
  maxAnswerBytes,
}: {
  readonly model: ModelAdapter;
  readonly steps: DurableSteps;
  readonly maxAnswerBytes: number;
}): ModelAdapter {
  let calls = 0;
  return {
    name: model.name,
    async generate(request: ModelRequest): Promise<ModelResponse> {
      calls += 1;
      const outcome = await steps.attempt(`model call ${calls}`, () =>
        callOnce(model, request, maxAnswerBytes),
      );
      if (outcome === undefined) {
        throw new ModelError('The run was aborted while the model was answering.', {
          kind: 'aborted',
        });
      }
      if (outcome.ok) return outcome.value;
      const { message, details = {} } = outcome.error;
      throw new ModelError(message, {
        kind: details['kind'] as ModelErrorKind,
        ...numberField(details, 'status'),
        ...numberField(details, 'retryAfterMs'),
        ...(typeof details['retryable'] === 'boolean' ? { retryable: details['retryable'] } : {}),
      });
    },
  };
}

async function callOnce(
  model: ModelAdapter,
  request: ModelRequest,
  maxAnswerBytes: number,
): Promise<StepOutcome<ModelResponse>> {
  try {
    // The journal stores JSON: a response that is not plain data fails here, on the first attempt.
    const response = await model.generate(request);
    const json = JSON.stringify(response);
    const bytes = Buffer.byteLength(json ?? '', 'utf8');
    if (bytes > maxAnswerBytes) {
      throw new ModelError(
        `The model's answer of ${describeBytes(bytes)} is over the ${describeBytes(maxAnswerBytes)} limit of one journal entry (maxEntryBytes)`,
        { kind: 'invalid_response' },
      );
    }
    return { ok: true, value: JSON.parse(json as string) as ModelResponse };
  } catch (thrown) {
    const error = classifyModelError(thrown, { signal: request.signal });
    return {
      ok: false,
      error: {
        name: error.name,
        code: error.code,
        message: error.message,
        details: {
          kind: error.kind,
          retryable: error.retryable,
          ...(error.status === undefined ? {} : { status: error.status }),
          ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
        },
      },
    };
  }
}

function numberField<Key extends string>(
  details: Readonly<Record<string, unknown>>,
  key: Key,
): { [K in Key]?: number } {
  const value = details[key];
  return (typeof value === 'number' ? { [key]: value } : {}) as { [K in Key]?: number };
}
