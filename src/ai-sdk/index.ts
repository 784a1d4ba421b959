/**
 * The `loopkeeper/ai-sdk` entry: loopkeeper inside the Vercel AI SDK. Needs the optional peer
 * dependencies `ai` and `@ai-sdk/provider`; the core entry never imports them.
 */

export { type FromModelMessagesOptions, fromModelMessages } from './from-model-messages.js';
export type { AiSdkShape, ShapedItem } from './shape.js';
export { type ToModelMessagesOptions, toModelMessages } from './to-model-messages.js';
