/**
 * The `loopkeeper/transcript` entry: the provider-neutral item types, protocol validation and
 * repair, turn boundaries, and the OpenAI chat conversions.
 */

export { assertValidTranscript } from './assert-valid-transcript.js';
export { atomicGroups } from './atomic-groups.js';
export { type DetectErrorInput, defaultDetectError } from './detect-error.js';
export { type FromChatMessagesOptions, fromChatMessages } from './from-chat-messages.js';
export { createItemId } from './ids.js';
export type { ItemRange } from './item-range.js';
export {
  type RepairedTranscript,
  type RepairTranscriptOptions,
  repairTranscript,
  UNANSWERED_CALL_CONTENT,
} from './repair-transcript.js';
export {
  itemToChatMessage,
  type ToChatMessagesOptions,
  toChatMessages,
} from './to-chat-messages.js';
export type {
  AssistantItem,
  ChatShape,
  ContextItem,
  ImagePart,
  Item,
  ItemKind,
  JsonValue,
  ProtocolProblem,
  ProtocolProblemKind,
  ProviderData,
  ReasoningPart,
  ReasoningProviderData,
  Repair,
  TextPart,
  ToolCall,
  ToolResultItem,
  UserContentPart,
  UserItem,
} from './types.js';
export { COMPACTION_SUMMARY_NAME, ITEM_KINDS } from './types.js';
export { type UserTurns, userTurns } from './user-turns.js';
export { validateTranscript } from './validate-transcript.js';
