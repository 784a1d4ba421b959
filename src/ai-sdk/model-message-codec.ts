import { isDeepStrictEqual } from 'node:util';
import type { ModelMessage } from 'ai';
import type { MessageCodec } from '../integrations/conversation.js';
import { fromModelMessages } from './from-model-messages.js';
import { appendModelMessages } from './to-model-messages.js';

/** AI SDK model messages as a conversation codec. */
export const modelMessageCodec: MessageCodec<ModelMessage> = {
  read: ({ messages, startIndex, idPrefix }) =>
    fromModelMessages({ messages, startIndex, idPrefix }),
  render: ({ into, items, previous }) => appendModelMessages({ messages: into, items, previous }),
  same: (left, right) => isDeepStrictEqual(left, right),
};
