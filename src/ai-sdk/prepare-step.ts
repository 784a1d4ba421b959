import { randomUUID } from 'node:crypto';
import type { LanguageModelUsage, ModelMessage } from 'ai';
import type { Compactor } from '../compaction/compactor-types.js';
import type { MutationPoint } from '../compaction/types.js';
import { ConfigError } from '../errors/config-error.js';
import { ContextOverflowError } from '../errors/context-overflow-error.js';
import { LoopkeeperError } from '../errors/loopkeeper-error.js';
import type { SessionStore } from '../log/store.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/types.js';
import type { Item } from '../transcript/types.js';
import { type CompactionRecord, compactOnce } from './compact-once.js';
import { Conversation } from './conversation.js';
import { SessionRecorder } from './session-recorder.js';

/** What `compactionPrepareStep` reads of a step: its usage and the model that served it. */
interface StepFacts {
  readonly usage: LanguageModelUsage;
  readonly response: { readonly modelId: string };
}

/** The argument the AI SDK passes to `prepareStep` (the fields this one reads). */
export interface PrepareStepInput {
  readonly messages: ModelMessage[];
  readonly stepNumber: number;
  readonly steps: readonly StepFacts[];
}

/** What the AI SDK passes to `onFinish` (the fields this one reads). */
export interface FinishInput extends StepFacts {
  readonly steps: readonly StepFacts[];
  readonly response: { readonly modelId: string; readonly messages: readonly ModelMessage[] };
}

export interface CompactionPrepareStepOptions {
  /** The compactor (`createCompactor`): its trigger, tiers and summarizer backend. */
  readonly compactor: Compactor;
  /** Counts tokens; default `await createTokenCounter()` (o200k_base), loaded on the first step. */
  readonly tokens?: TokenCounter;
  /** Compactions allowed before one request, after which a prompt still over the limit fails. Default 3. */
  readonly maxConsecutiveCompactions?: number;
  /**
   * Tokens each request holds besides the messages (system prompt, tool schemas) until the
   * provider's first reported usage measures them. Default 0.
   */
  readonly overheadTokens?: number;
  /** Record every step and compaction to this store, so `loopkeeper show` and `inspect` read the run. */
  readonly store?: SessionStore;
  /** The session to record to; required with `store`. */
  readonly sessionId?: string;
  /** Called after each compaction with what it did. */
  readonly onCompaction?: (record: CompactionRecord) => void;
}

/** A `prepareStep` that keeps the conversation inside the window; pass `onFinish` along too when recording. */
export interface CompactionPrepareStep {
  (input: PrepareStepInput): Promise<{ messages: ModelMessage[] }>;
  /** Records the last step and the end of the run; a no-op without a store. */
  readonly onFinish: (event: FinishInput) => Promise<void>;
  /** The effective history the next request is built from. */
  readonly history: () => readonly Item[];
  /** How many compactions changed the history so far. */
  readonly compactions: () => number;
}

function pointOf(messages: readonly ModelMessage[], stepNumber: number): MutationPoint {
  const last = messages[messages.length - 1];
  if (last?.role === 'tool') return 'AfterToolResult';
  return stepNumber === 0 ? 'BeforeInference' : 'AfterTurnEnded';
}

/**
 * An AI SDK `prepareStep` built from a loopkeeper compactor. Before each step it converts the
 * messages the SDK hands over (only the new ones: the conversion is kept incrementally),
 * checks the tool-call protocol, asks the compactor's trigger (on the provider's reported
 * usage once there is one), compacts through the tiers when it fires, and returns the
 * effective history as the step's messages. Between compactions that list only grows at its
 * end, so the provider's prompt cache stays warm; a compaction aims well under the trigger
 * (hysteresis), so it is rare. More than `maxConsecutiveCompactions` before one request, with
 * the prompt still over the window, fails the call with `ContextOverflowError`.
 *
 * @example
 * ```ts
 * import { generateText, stepCountIs } from 'ai';
 * import { openai } from '@ai-sdk/openai';
 * import { contextWindowTrigger, createCompactor, extractiveSummarizer } from 'loopkeeper';
 * import { compactionPrepareStep } from 'loopkeeper/ai-sdk';
 *
 * const prepareStep = compactionPrepareStep({
 *   compactor: createCompactor({
 *     trigger: contextWindowTrigger({ window: 128_000 }),
 *     backend: extractiveSummarizer(),
 *   }),
 * });
 * const result = await generateText({
 *   model: openai('gpt-4o'),
 *   prompt: 'Summarize the repository',
 *   stopWhen: stepCountIs(50),
 *   prepareStep,
 * });
 * console.log(result.text, prepareStep.compactions());
 * ```
 */
export function compactionPrepareStep({
  compactor,
  tokens: givenTokens,
  maxConsecutiveCompactions = 3,
  overheadTokens: initialOverhead = 0,
  store,
  sessionId,
  onCompaction,
}: CompactionPrepareStepOptions): CompactionPrepareStep {
  if (!Number.isInteger(maxConsecutiveCompactions) || maxConsecutiveCompactions < 1) {
    throw new ConfigError(
      `compactionPrepareStep: maxConsecutiveCompactions must be a positive integer, got ${maxConsecutiveCompactions}`,
      { code: 'config_invalid_option' },
    );
  }
  if (store !== undefined && (sessionId === undefined || sessionId === '')) {
    throw new ConfigError('compactionPrepareStep: a store needs a sessionId to record to', {
      code: 'config_invalid_option',
    });
  }
  const recorder =
    store === undefined ? undefined : new SessionRecorder({ store, sessionId: sessionId ?? '' });
  let tokensPromise: Promise<TokenCounter> | undefined;
  const counter = () => {
    tokensPromise ??=
      givenTokens === undefined ? createTokenCounter() : Promise.resolve(givenTokens);
    return tokensPromise;
  };
  let conversation = new Conversation(newPrefix());
  let runId: string | undefined;
  let overheadTokens = initialOverhead;
  /** The previous request: how many items it held, our estimate of them, and its epoch. */
  let lastRequest: { itemCount: number; estimate: number; epoch: number } | undefined;
  let compactions = 0;
  /** How many messages the current run started with. */
  let runStart = 0;

  /** Usage of the step before `steps`' end, as a log event; calibrates the overhead. */
  function usageEvent(step: StepFacts | undefined) {
    const promptTokens = step?.usage.inputTokens;
    if (step === undefined || promptTokens === undefined || lastRequest === undefined) return [];
    overheadTokens = Math.max(0, promptTokens - lastRequest.estimate);
    const cached = step.usage.inputTokenDetails?.cacheReadTokens;
    return [
      {
        type: 'usage-reported' as const,
        ...(runId === undefined ? {} : { runId }),
        model: step.response.modelId,
        promptTokens,
        completionTokens: step.usage.outputTokens ?? 0,
        ...(cached === undefined ? {} : { cachedTokens: cached }),
        estimatedPromptTokens: lastRequest.estimate,
      },
    ];
  }

  async function follow(messages: readonly ModelMessage[], step: StepFacts | undefined) {
    if (!conversation.continuedBy(messages)) {
      if (recorder !== undefined) {
        throw new ConfigError(
          `compactionPrepareStep: these messages do not continue the conversation recorded to session ${recorder.sessionId}; use one prepareStep (and session) per conversation`,
          { code: 'config_invalid_input' },
        );
      }
      conversation = new Conversation(newPrefix());
      lastRequest = undefined;
    }
    const usage = usageEvent(step);
    const items = conversation.append(messages);
    const withRun = runId === undefined ? {} : { runId };
    await recorder?.append([
      ...usage,
      ...(items.length === 0 ? [] : [{ type: 'items-appended' as const, ...withRun, items }]),
    ]);
  }

  async function fail(error: unknown, steps: number): Promise<never> {
    if (recorder !== undefined && runId !== undefined) {
      const known = LoopkeeperError.isInstance(error) ? error : undefined;
      await recorder
        .append([
          {
            type: 'run-finished',
            runId,
            outcome: 'failed',
            steps,
            error: {
              name: known?.name ?? 'Error',
              code: known?.code ?? 'unknown',
              message: error instanceof Error ? error.message : String(error),
            },
          },
        ])
        .catch(() => undefined);
      runId = undefined;
    }
    throw error;
  }

  async function prepareStep({ messages, stepNumber, steps }: PrepareStepInput) {
    const tokens = await counter();
    if (stepNumber === 0) {
      runId = randomUUID();
      runStart = messages.length;
      await recorder?.append([{ type: 'run-started', runId }]);
    }
    try {
      await follow(messages, steps[steps.length - 1]);
      const step = steps[steps.length - 1];
      const reported =
        stepNumber > 0 &&
        lastRequest !== undefined &&
        lastRequest.epoch === conversation.epoch &&
        step?.usage.inputTokens !== undefined
          ? { promptTokens: step.usage.inputTokens, itemCount: lastRequest.itemCount }
          : undefined;
      const point = pointOf(messages, stepNumber);
      for (let attempt = 0; ; attempt += 1) {
        const transcript = conversation.items;
        const input = {
          transcript,
          tokens,
          point,
          overheadTokens,
          ...(attempt === 0 && reported !== undefined ? { reported } : {}),
        };
        const decision = compactor.evaluate(input);
        if (!decision.fire) break;
        const limit = decision.budget.limitTokens ?? decision.budget.maxTokens;
        if (attempt >= maxConsecutiveCompactions) {
          if (decision.tokens <= limit) break;
          throw new ContextOverflowError(
            `compactionPrepareStep: ${decision.tokens} tokens are still over the limit of ${limit} after ${attempt} compactions`,
          );
        }
        const record = await compactOnce({
          compactor,
          input: { ...input, reason: 'threshold', signal: new AbortController().signal },
          originalOf: (id) => conversation.original(id),
          stepNumber,
        });
        if (record === undefined) {
          if (decision.tokens <= limit) break;
          throw new ContextOverflowError(
            `compactionPrepareStep: ${decision.tokens} tokens are over the limit of ${limit} and nothing more can be compacted`,
          );
        }
        const throughSeq = recorder === undefined ? 0 : await recorder.lastSeq();
        conversation.replace(record.transcript);
        compactions += 1;
        await recorder?.append([
          {
            type: 'transcript-replaced',
            ...(runId === undefined ? {} : { runId }),
            throughSeq,
            ...record.marker(transcript),
          },
        ]);
        onCompaction?.(record);
      }
      lastRequest = {
        itemCount: conversation.items.length,
        estimate: tokens.count(conversation.items),
        epoch: conversation.epoch,
      };
      return { messages: conversation.messages() };
    } catch (error) {
      return fail(error, stepNumber);
    }
  }

  async function onFinish(event: FinishInput): Promise<void> {
    if (recorder === undefined || runId === undefined) return;
    // The run's messages are the ones it started with plus every step's response.
    await follow([...conversation.seenPrefix(runStart), ...event.response.messages], event);
    await recorder.append([
      { type: 'run-finished', runId, outcome: 'completed', steps: event.steps.length },
    ]);
    runId = undefined;
  }

  return Object.assign(prepareStep, {
    onFinish,
    history: () => conversation.items,
    compactions: () => compactions,
  });
}

function newPrefix(): string {
  return `ai${randomUUID().slice(0, 6)}.`;
}
