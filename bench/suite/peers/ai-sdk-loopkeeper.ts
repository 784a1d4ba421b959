import type { ModelMessage } from 'ai';
import { compactionPrepareStep, toModelMessages } from '../../../src/ai-sdk/index.js';
import type { Compactor } from '../../../src/compaction/index.js';
import { countRequest, type TokenCounter } from '../../../src/tokens/index.js';
import type { Item } from '../../../src/transcript/types.js';

/** What the driver needs of a cost-bench replay (bench/suite/cost-retention.ts `Replay`). */
interface ReplayRequests {
  readonly instructions: string;
  readonly tools: readonly { readonly name: string }[];
  readonly requests: readonly (readonly Item[])[];
}

/**
 * The requests an AI SDK agent with loopkeeper's `prepareStep` sends for a replay: before each
 * request the unmanaged history is handed over as `ModelMessage`s (the list grows at its end,
 * as in `generateText`), and what `prepareStep` returns is the request. Its effective history
 * is what those messages render, with stable item ids, so the bill can see the cached prefix.
 */
export async function prepareStepRequests({
  replay,
  counter,
  compactor,
}: {
  readonly replay: ReplayRequests;
  readonly counter: TokenCounter;
  readonly compactor: Compactor;
}): Promise<(readonly Item[])[]> {
  const overheadTokens =
    countRequest({ counter, items: [], instructions: replay.instructions }) +
    counter.countText(JSON.stringify(replay.tools));
  const prepareStep = compactionPrepareStep({ compactor, tokens: counter, overheadTokens });
  const messages: ModelMessage[] = [];
  let converted = 0;
  const out: (readonly Item[])[] = [];
  for (const [stepNumber, request] of replay.requests.entries()) {
    messages.push(...toModelMessages({ items: request.slice(converted) }));
    converted = request.length;
    const prepared = await prepareStep({ messages, stepNumber, steps: [] });
    const history = prepareStep.history();
    if (prepared.messages.length === 0 || history.length === 0) {
      throw new Error('bench: prepareStep returned an empty request');
    }
    out.push([...history]);
  }
  return out;
}
