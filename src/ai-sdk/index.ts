/**
 * The `loopkeeper/ai-sdk` entry: the Vercel AI SDK as a model source for the loop. Needs the
 * optional peer dependencies `ai` and `@ai-sdk/provider`; the core entry never imports them.
 */
export { type AiSdkModelOptions, aiSdkModel } from './ai-sdk-model.js';
