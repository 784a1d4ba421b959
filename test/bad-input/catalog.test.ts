import type { TokenCounter } from 'loopkeeper/tokens';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markdownTable } from '../faults/markdown-table.js';
import { sharedTokenCounter } from '../support/loop-harness.js';
import type { CatalogEntry } from './catalog-entry.js';
import { modelOutputInputs } from './model-output-inputs.js';
import { optionInputs } from './option-inputs.js';
import { storeInputs } from './store-inputs.js';
import { transcriptInputs } from './transcript-inputs.js';
import { userMessageInputs } from './user-message-inputs.js';

let tokens: TokenCounter;
const results: { area: string; input: string; result: string }[] = [];

beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

afterAll(() => {
  const table = markdownTable({
    headers: ['area', 'input', 'result'],
    rows: results.map((row) => [row.area, row.input, row.result]),
  });
  console.log(`\nBad-input catalogue (${results.length} inputs)\n\n${table}\n`);
});

const catalogue: readonly { readonly api: string; readonly entries: readonly CatalogEntry[] }[] = [
  {
    api: 'validateTranscript / fromChatMessages / the loop: transcripts',
    entries: transcriptInputs,
  },
  { api: 'createAgentLoop, triggers, createCompactor, tools: options', entries: optionInputs },
  { api: 'FileSessionStore and openAgentLoop: stores', entries: storeInputs },
  { api: 'openAIChatModel in the loop: model output', entries: modelOutputInputs },
  { api: 'user.message', entries: userMessageInputs },
];

describe('bad-input catalogue', () => {
  it('holds at least 25 malformed inputs', () => {
    expect(catalogue.flatMap((group) => group.entries).length).toBeGreaterThanOrEqual(25);
  });

  for (const group of catalogue) {
    describe(group.api, () => {
      for (const entry of group.entries) {
        it(`${entry.input}: typed error or documented safe behaviour, nothing lost`, async () => {
          const result = await entry.check({ tokens });
          results.push({ area: entry.area, input: entry.input, result });
        });
      }
    });
  }
});
