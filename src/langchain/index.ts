/**
 * The `loopkeeper/langchain` entry: loopkeeper compaction inside a LangChain v1 agent. Needs
 * the optional peer dependencies `langchain` and `@langchain/core`; no other entry imports them.
 */

export type { CompactionRecord } from '../integrations/compact-once.js';
export {
  type CompactionMiddlewareOptions,
  compactionMiddleware,
} from './compaction-middleware.js';
export {
  type FromLangChainMessagesOptions,
  fromLangChainMessages,
  type LangChainShape,
  type LangChainShapedItem,
  type ToLangChainMessagesOptions,
  toLangChainMessages,
} from './langchain-messages.js';
