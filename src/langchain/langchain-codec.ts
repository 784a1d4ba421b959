import { isDeepStrictEqual } from 'node:util';
import type { BaseMessage } from '@langchain/core/messages';
import type { MessageCodec } from '../integrations/conversation.js';
import { fromLangChainMessages, toLangChainMessages } from './langchain-messages.js';

/** LangChain messages as a conversation codec. */
export const langChainCodec: MessageCodec<BaseMessage> = {
  read: ({ messages, startIndex, idPrefix }) =>
    fromLangChainMessages({ messages, startIndex, idPrefix }),
  render: ({ into, items }) => {
    into.push(...toLangChainMessages({ items }));
  },
  // LangGraph gives every message in the state an id; equal ids and contents are the same message.
  same: (left, right) => left.id === right.id && isDeepStrictEqual(left.toDict(), right.toDict()),
};
