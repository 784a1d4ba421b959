import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { ModelError } from '../errors/model-error.js';
import { readResponse, responseFailure } from './read-response.js';
import type { ModelResponse } from './types.js';

/**
 * Reads a streamed Responses API answer: text deltas go to `onTextDelta` as they arrive, and the
 * answer is the response the closing `response.completed` (or `response.incomplete`) event
 * carries, so streamed and non-streamed answers are read by the same code. An `error` or
 * `response.failed` event throws a typed `ModelError`; a stream that ends without a closing
 * event was cut (`network`), or aborted.
 */
export async function readResponseStream({
  stream,
  model,
  signal,
  onEvent,
  onTextDelta,
}: {
  stream: AsyncIterable<ResponseStreamEvent>;
  model: string;
  signal: AbortSignal;
  /** Called for every event received, before it is read. */
  onEvent?: () => void;
  onTextDelta?: ((delta: string) => void) | undefined;
}): Promise<ModelResponse> {
  let finished: Response | undefined;
  for await (const event of stream) {
    onEvent?.();
    switch (event.type) {
      case 'response.output_text.delta':
        if (event.delta !== '') onTextDelta?.(event.delta);
        break;
      case 'response.completed':
      case 'response.incomplete':
        finished = event.response;
        break;
      case 'response.failed':
        throw responseFailure({
          code: event.response.error?.code,
          message: event.response.error?.message ?? 'the response failed',
        });
      case 'error':
        throw responseFailure({ code: event.code, message: event.message });
      default:
        break;
    }
  }
  // Aborting a stream ends the for-await quietly instead of throwing.
  if (signal.aborted) {
    throw new ModelError('The model request was aborted.', {
      kind: 'aborted',
      cause: signal.reason,
    });
  }
  if (finished === undefined) {
    throw new ModelError(
      'The model stream ended before the response completed: the connection was cut.',
      { kind: 'network' },
    );
  }
  return readResponse({ response: finished, model });
}
