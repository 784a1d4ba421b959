import type { LanguageModelUsage, ModelMessage } from 'ai';
import {
  CompactingSession,
  type CompactingSessionOptions,
  type ReportedStep,
} from '../integrations/compacting-session.js';
import type { Item } from '../transcript/types.js';
import type { MutationPoint } from '../vocabulary/index.js';
import { modelMessageCodec } from './model-message-codec.js';

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

export type CompactionPrepareStepOptions = CompactingSessionOptions;

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

function reportedStep(step: StepFacts | undefined): ReportedStep | undefined {
  if (step === undefined) return undefined;
  return {
    model: step.response.modelId,
    promptTokens: step.usage.inputTokens,
    completionTokens: step.usage.outputTokens,
    cachedTokens: step.usage.inputTokenDetails?.cacheReadTokens,
  };
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
export function compactionPrepareStep(
  options: CompactionPrepareStepOptions,
): CompactionPrepareStep {
  const session = new CompactingSession({
    owner: 'compactionPrepareStep',
    codec: modelMessageCodec,
    options,
  });

  async function prepareStep({ messages, stepNumber, steps }: PrepareStepInput) {
    if (stepNumber === 0) await session.startRun(messages.length);
    const prepared = await session.prepare({
      messages,
      step: reportedStep(steps[steps.length - 1]),
      point: pointOf(messages, stepNumber),
      stepNumber,
    });
    return { messages: prepared };
  }

  async function onFinish(event: FinishInput): Promise<void> {
    if (!session.running) return;
    // The run's messages are the ones it started with plus every step's response.
    await session.finishRun({
      messages: session.runMessages(event.response.messages),
      step: reportedStep(event),
      steps: event.steps.length,
    });
  }

  return Object.assign(prepareStep, {
    onFinish,
    history: () => session.history,
    compactions: () => session.compactions,
  });
}
