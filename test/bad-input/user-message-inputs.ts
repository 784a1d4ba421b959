import type { TokenCounter } from 'loopkeeper/tokens';
import { expect } from 'vitest';
import { type CatalogEntry, expectRunFailed, type LoopProbe, probeLoop } from './catalog-entry.js';

/** Sends `content` as a `user.message` to a loop whose model always answers. */
export function probeUserMessage(tokens: TokenCounter, content: unknown): Promise<LoopProbe> {
  return probeLoop({ tokens, content });
}

/** Refused before the run starts: the run writes nothing at all, and the session goes on. */
function refusedAtTheDoor(probe: LoopProbe): string {
  expect(probe.logged).toEqual([]);
  return `${expectRunFailed(probe, { name: 'ProtocolError', code: 'protocol_invalid' })}; nothing of the run is logged`;
}

export const userMessageInputs: readonly CatalogEntry[] = [
  {
    area: 'user message',
    input: 'user.message with content 42',
    check: async ({ tokens }) => refusedAtTheDoor(await probeUserMessage(tokens, 42)),
  },
  {
    area: 'user message',
    input: "user.message with a part of unknown type ([{type: 'audio'}])",
    check: async ({ tokens }) =>
      refusedAtTheDoor(await probeUserMessage(tokens, [{ type: 'audio', data: 'AAAA' }])),
  },
  {
    area: 'user message',
    input: 'user.message with content null',
    check: async ({ tokens }) => refusedAtTheDoor(await probeUserMessage(tokens, null)),
  },
];
