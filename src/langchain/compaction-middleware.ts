import {
  type AIMessage,
  type BaseMessage,
  SystemMessage,
  type UsageMetadata,
} from '@langchain/core/messages';
import { createMiddleware } from 'langchain';
import {
  CompactingSession,
  type CompactingSessionOptions,
  type ReportedStep,
} from '../integrations/compacting-session.js';
import type { MutationPoint } from '../vocabulary/index.js';
import { langChainCodec } from './langchain-codec.js';

export type CompactionMiddlewareOptions = CompactingSessionOptions;

/** What the previous model call reported: the newest AI message among the new ones. */
function reportedStep(fresh: readonly BaseMessage[]): ReportedStep | undefined {
  for (let index = fresh.length - 1; index >= 0; index -= 1) {
    const candidate = fresh[index];
    if (candidate?.getType() !== 'ai') continue;
    const message = candidate as AIMessage;
    const usage = message.usage_metadata as UsageMetadata | undefined;
    const model = message.response_metadata?.['model_name'] ?? message.response_metadata?.['model'];
    return {
      model: typeof model === 'string' ? model : 'unknown',
      promptTokens: usage?.input_tokens,
      completionTokens: usage?.output_tokens,
      cachedTokens: usage?.input_token_details?.cache_read,
    };
  }
  return undefined;
}

/**
 * Leading system messages (host context) join the request's system message; a summary is not
 * one (it is quoted data in a human message, see `toLangChainMessages`).
 */
function withLeadingContext(
  messages: BaseMessage[],
  systemMessage: SystemMessage,
): { messages: BaseMessage[]; systemMessage: SystemMessage } {
  let count = 0;
  while (count < messages.length && SystemMessage.isInstance(messages[count])) count += 1;
  if (count === 0) return { messages, systemMessage };
  const texts = messages.slice(0, count).map((message) => message.text);
  const base = systemMessage.text;
  return {
    messages: messages.slice(count),
    systemMessage: new SystemMessage([base, ...texts].filter((text) => text !== '').join('\n\n')),
  };
}

/**
 * A LangChain `createAgent` middleware built from a loopkeeper compactor: `wrapModelCall`
 * follows the agent's messages (only the new ones), checks the tool-call protocol, and
 * compacts through the tiers when the trigger fires, on the provider's reported usage once
 * there is one. Only the request is compacted: the agent state keeps every message, and
 * between compactions each request extends the previous one, so the prompt cache stays warm.
 * A summary reaches the model as quoted data in a human message, never as system text; leading
 * host context joins the request's system message (providers refuse a second system message).
 * `beforeAgent` / `afterAgent` record the run when a store is given.
 *
 * @example
 * ```ts
 * import { createAgent } from 'langchain';
 * import { contextWindowTrigger, createCompactor, extractiveSummarizer } from 'loopkeeper';
 * import { compactionMiddleware } from 'loopkeeper/langchain';
 *
 * const agent = createAgent({
 *   model: 'openai:gpt-4o',
 *   tools: [],
 *   middleware: [
 *     compactionMiddleware({
 *       compactor: createCompactor({
 *         trigger: contextWindowTrigger({ window: 128_000 }),
 *         backend: extractiveSummarizer(),
 *       }),
 *     }),
 *   ],
 * });
 * ```
 */
export function compactionMiddleware(options: CompactionMiddlewareOptions) {
  const session = new CompactingSession({
    owner: 'compactionMiddleware',
    codec: langChainCodec,
    options,
  });
  let calls = 0;
  const middleware = createMiddleware({
    name: 'LoopkeeperCompaction',
    beforeAgent: async (state) => {
      calls = 0;
      await session.startRun(state.messages.length);
      return undefined;
    },
    wrapModelCall: async (request, handler) => {
      const { messages } = request;
      const fresh = messages.slice(Math.min(session.messageCount, messages.length));
      const last = messages[messages.length - 1];
      const point: MutationPoint =
        last?.getType() === 'tool'
          ? 'AfterToolResult'
          : calls === 0
            ? 'BeforeInference'
            : 'AfterTurnEnded';
      const prepared = await session.prepare({
        messages,
        step: calls === 0 ? undefined : reportedStep(fresh),
        point,
        stepNumber: calls,
      });
      calls += 1;
      return handler({ ...request, ...withLeadingContext(prepared, request.systemMessage) });
    },
    afterAgent: async (state) => {
      const fresh = state.messages.slice(Math.min(session.messageCount, state.messages.length));
      await session.finishRun({
        messages: state.messages,
        step: reportedStep(fresh),
        steps: calls,
      });
      return undefined;
    },
  });
  return Object.assign(middleware, {
    /** The effective history the next request is built from. */
    history: () => session.history,
    /** How many compactions changed the history so far. */
    compactions: () => session.compactions,
  });
}
