import { getEncoding } from 'js-tiktoken';
import { createTokenCounter } from '../../src/tokens/create-token-counter.js';
import type { Item } from '../../src/transcript/types.js';
import type { LongSession } from './long-session.js';
import { markdownTable, type ReportSection } from './markdown.js';
import type { BenchScale } from './options.js';
import { formatCount, formatMilliseconds, formatPercent, timed, timedMedian } from './stats.js';

/** The text of an item as a provider tokenizes it, without the chat-format framing. */
function itemText(item: Item): string {
  switch (item.kind) {
    case 'user':
      return typeof item.content === 'string'
        ? item.content
        : item.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    case 'assistant':
      return [
        item.text ?? '',
        ...(item.reasoning ?? []).map((part) => part.text),
        ...(item.toolCalls ?? []).map((call) => call.name + call.arguments),
      ].join('');
    case 'toolResult':
      return item.content;
    case 'context':
      return item.text;
  }
}

/** The OpenAI cookbook's chat rule: 3 tokens per message, 3 to prime the reply. */
const PER_MESSAGE = 3;

/**
 * Token counting of the whole long session: loopkeeper's exact counter (cold: empty per-item
 * cache; warm: every item cached), js-tiktoken on the same text with the cookbook's message
 * overhead, and the chars/4 estimate; each with its error against the exact count.
 */
export async function tokenCountingBench({
  session,
  scale,
  loadMilliseconds,
}: {
  readonly session: LongSession;
  readonly scale: BenchScale;
  /** The first `createTokenCounter` of the process, which loads the encoding. */
  readonly loadMilliseconds: number;
}): Promise<ReportSection> {
  const { items } = session;
  const cold = await timedMedian(
    async () => {
      const counter = await createTokenCounter();
      return counter.count(items);
    },
    { repeats: scale.repeats },
  );
  const warmCounter = await createTokenCounter();
  warmCounter.count(items);
  const warm = await timedMedian(() => warmCounter.count(items), { repeats: 20 });
  const exact = cold.result;

  const tiktokenLoad = await timed(() => getEncoding('o200k_base'));
  const encoder = tiktokenLoad.result;
  const tiktoken = await timedMedian(
    () => {
      let total = PER_MESSAGE;
      for (const item of items)
        total += encoder.encode(itemText(item), [], []).length + PER_MESSAGE;
      return total;
    },
    { repeats: scale.repeats },
  );
  const quarter = await timedMedian(
    () => {
      let total = 0;
      for (const item of items) total += Math.ceil(itemText(item).length / 4);
      return total;
    },
    { repeats: 20 },
  );
  const error = (value: number) => {
    const difference = (value - exact) / exact;
    return `${difference >= 0 ? '+' : ''}${formatPercent(difference)}`;
  };
  const rows = [
    [
      'loopkeeper `createTokenCounter` (o200k), cold',
      formatMilliseconds(loadMilliseconds),
      formatMilliseconds(cold.milliseconds),
      formatCount(exact),
      'exact (reference)',
    ],
    [
      'loopkeeper, warm (every item cached by id)',
      '—',
      formatMilliseconds(warm.milliseconds),
      formatCount(warm.result),
      error(warm.result),
    ],
    [
      'js-tiktoken (o200k) + 3 per message',
      formatMilliseconds(tiktokenLoad.milliseconds),
      formatMilliseconds(tiktoken.milliseconds),
      formatCount(tiktoken.result),
      error(tiktoken.result),
    ],
    [
      'chars / 4',
      '—',
      formatMilliseconds(quarter.milliseconds),
      formatCount(quarter.result),
      error(quarter.result),
    ],
  ];
  return {
    title: '5. Token counting',
    intro: `The long session (${formatCount(items.length)} items, ${formatCount(session.toolCalls)} tool calls). "Cold" is a fresh counter with an empty per-item cache (the encoding itself already loaded; its first load is the "load" column); js-tiktoken has no per-item cache, so every count is cold. Errors are against loopkeeper's exact count, which includes the chat format's per-message and per-tool-call tokens.`,
    body: markdownTable({
      header: ['method', 'load', 'count', 'tokens', 'error'],
      rows,
      right: [1, 2, 3, 4],
    }),
  };
}
