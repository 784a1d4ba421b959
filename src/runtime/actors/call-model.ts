import type { CallModelInput, CallModelOutput } from '../../../machines/agent-loop.types.js';
import { ModelError } from '../../errors/model-error.js';
import type {
  InferenceDelta,
  ReasoningDelta,
  TelemetryEvent,
  ToolCallDelta,
} from '../../events/telemetry-events.js';
import type { NewSessionEvent } from '../../log/events.js';
import { classifyModelError } from '../../model/classify-error.js';
import type { ModelAdapter, ModelDelta, ModelRequest, ModelResponse } from '../../model/types.js';
import { describeValue, isRecord } from '../../vocabulary/schemas/describe-issues.js';
import { forward, loopActor } from './loop-actor-context.js';
import { toAssistantItem } from './to-assistant-item.js';

/** Sends the effective history to the model and logs its usage and answer. */
export const callModelActor = loopActor<CallModelOutput, CallModelInput>(
  async ({ session, model, instructions, specs }, { input, signal }) => {
    const telemetry = (event: TelemetryEvent) => forward(input.loop, event);
    const { tokens: estimate, exact } = await session.requestEstimate();
    session.assertReadyForModel();
    const transcript = session.items;
    telemetry({
      type: 'InferenceStarted',
      sessionId: input.sessionId,
      runId: input.runId,
      at: Date.now(),
      step: input.step,
      estimatedPromptTokens: estimate,
      ...(exact ? {} : { estimateIsBound: true }),
      ...(model.model === undefined ? {} : { model: model.model }),
    });
    const started = performance.now();
    const response = await generateTyped(model, {
      ...(instructions === undefined ? {} : { instructions }),
      transcript,
      tools: specs,
      signal,
      onDelta: (delta) => {
        // A piece that arrives after an abort belongs to an answer that will not be logged.
        if (signal.aborted) return;
        const event = deltaEvent(delta, {
          sessionId: input.sessionId,
          runId: input.runId,
          at: Date.now(),
          step: input.step,
        });
        if (event !== undefined) telemetry(event);
      },
    });
    const durationMs = performance.now() - started;
    const assistant = toAssistantItem(response, session);
    // Usage goes first: the projection pairs it with the history the request was built from.
    const events: NewSessionEvent[] = [];
    if (response.usage !== undefined) {
      events.push({
        type: 'usage-reported',
        runId: input.runId,
        model: response.model,
        promptTokens: response.usage.promptTokens,
        completionTokens: response.usage.completionTokens,
        ...(response.usage.cachedTokens === undefined
          ? {}
          : { cachedTokens: response.usage.cachedTokens }),
        // The log keeps exact estimates only (a deferred encoding gives a bound, see LoopSession).
        ...(exact ? { estimatedPromptTokens: estimate } : {}),
      });
    }
    const compaction = response.providerCompaction;
    if (compaction !== undefined) {
      // After the usage: the reported prompt described the history the provider replaced, so
      // the marker makes it stale and our own trigger does not compact the same span again.
      events.push({
        type: 'transcript-replaced',
        runId: input.runId,
        throughSeq: session.lastSeq,
        view: [{ item: compaction.item }],
        reason: 'threshold',
        tier: 'provider',
        strategies: [compaction.strategy],
        tokensBefore: estimate,
        tokensAfter: (await session.tokens()).count([compaction.item]),
      });
    }
    events.push({ type: 'items-appended', runId: input.runId, items: [assistant] });
    if (signal.aborted) throw signal.reason;
    await session.appendForRun(input.runId, events);
    const toolCalls = assistant.toolCalls?.length ?? 0;
    return {
      kind: toolCalls > 0 ? 'toolCalls' : 'final',
      toolCalls,
      usage: response.usage ?? null,
      durationMs,
      model: response.model,
      ...(response.finishReason === undefined ? {} : { finishReason: response.finishReason }),
    };
  },
);

/** The telemetry event of one streamed piece of the answer; none for what is not a delta. */
function deltaEvent(
  delta: ModelDelta,
  base: { sessionId: string; runId: string; at: number; step: number },
): InferenceDelta | ReasoningDelta | ToolCallDelta | undefined {
  // A JavaScript adapter may report anything: only well-formed pieces become telemetry.
  if (!isRecord(delta as unknown) || typeof delta.delta !== 'string') return undefined;
  switch (delta.type) {
    case 'text':
      return { type: 'InferenceDelta', ...base, delta: delta.delta };
    case 'reasoning':
      return { type: 'ReasoningDelta', ...base, delta: delta.delta };
    case 'tool_call':
      return {
        type: 'ToolCallDelta',
        ...base,
        index: delta.index,
        ...(delta.callId === undefined ? {} : { callId: delta.callId }),
        ...(delta.toolName === undefined ? {} : { toolName: delta.toolName }),
        delta: delta.delta,
      };
    default:
      return undefined;
  }
}

/**
 * A custom adapter may throw anything, or resolve anything: classify a throw, and refuse an
 * answer that is not an object, so the run ends with a `model_*` code either way.
 */
async function generateTyped(model: ModelAdapter, request: ModelRequest): Promise<ModelResponse> {
  let response: ModelResponse;
  try {
    response = await model.generate(request);
  } catch (error) {
    throw classifyModelError(error, { signal: request.signal });
  }
  // The type says an object; a JavaScript adapter (or a mock) may still resolve undefined.
  if (!isRecord(response as unknown)) {
    throw new ModelError(
      `The model adapter answered ${describeValue(response)} instead of a response object`,
      { kind: 'invalid_response' },
    );
  }
  return response;
}
