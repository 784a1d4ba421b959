import { expect } from 'vitest';
import { ScriptedModel } from '../../src/testing/scripted-model.js';
import type { TokenCounter } from '../../src/tokens/types.js';
import { type CatalogEntry, expectRunCompleted, expectRunFailed } from './catalog-entry.js';
import { type LoopProbe, probeLoop } from './loop-probe.js';

/** Sends `content` as a `user.message` to a loop whose model always answers. */
export function probeUserMessage(tokens: TokenCounter, content: unknown): Promise<LoopProbe> {
  return probeLoop({
    model: new ScriptedModel({ tokens, script: () => ({ text: 'Fine.' }) }),
    tokens,
    content,
  });
}

const poisoned =
  'the invalid user item is logged before the check, so every later run of the session fails too';

export const userMessageInputs: readonly CatalogEntry[] = [
  {
    area: 'user message',
    input: 'user.message with content 42',
    check: async ({ tokens }) =>
      expectRunFailed(await probeUserMessage(tokens, 42), {
        name: 'ProtocolError',
        code: 'protocol_invalid',
        knownBug: poisoned,
      }),
  },
  {
    area: 'user message',
    input: "user.message with a part of unknown type ([{type: 'audio'}])",
    check: async ({ tokens }) =>
      expectRunFailed(await probeUserMessage(tokens, [{ type: 'audio', data: 'AAAA' }]), {
        name: 'ProtocolError',
        code: 'protocol_invalid',
        knownBug: poisoned,
      }),
  },
  {
    area: 'user message',
    input: 'user.message with content null',
    check: async ({ tokens }) => {
      const probe = await probeUserMessage(tokens, null);
      expectRunCompleted(probe);
      expect(probe.appended[0]).toMatchObject({ kind: 'user', content: '' });
      return "safe: treated as an empty message ('') and answered";
    },
  },
];
