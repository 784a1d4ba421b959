/**
 * The `loopkeeper/ai-sdk` entry: loopkeeper inside the Vercel AI SDK. Needs the optional peer
 * dependencies `ai` and `@ai-sdk/provider`; the core entry never imports them.
 */

export type { CompactionRecord } from '../integrations/compact-once.js';
export { type AiSdkModelOptions, aiSdkModel } from './ai-sdk-model.js';
export { type AiSdkSummarizerOptions, aiSdkSummarizer } from './ai-sdk-summarizer.js';
export { type FromModelMessagesOptions, fromModelMessages } from './from-model-messages.js';
export {
  type CompactionPrepareStep,
  type CompactionPrepareStepOptions,
  compactionPrepareStep,
  type FinishInput,
  type PrepareStepInput,
} from './prepare-step.js';
export type { AiSdkShape, ShapedItem } from './shape.js';
export { type ToModelMessagesOptions, toModelMessages } from './to-model-messages.js';
