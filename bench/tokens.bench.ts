/**
 * Token counting benchmark: cold and warm counting of the largest shared transcript repeated
 * to about 200k tokens, plus 10 MB tool outputs. Run with `npx tsx bench/tokens.bench.ts`.
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { createTokenCounter } from '../src/tokens/create-token-counter.js';
import type { Item } from '../src/transcript/types.js';
import { loadTranscriptFixtures } from '../test/support/transcripts.js';

const TARGET_TOKENS = 200_000;

export interface BenchRow {
  readonly scenario: string;
  readonly items: number;
  readonly tokens: number;
  readonly milliseconds: number;
}

// biome-ignore lint/suspicious/noExplicitAny: raw OpenAI chat messages as stored on disk
type ChatMessage = any;

/** A minimal message-to-item mapping, so the bench depends on nothing but the counter. */
function toItems(messages: readonly ChatMessage[], copy: number): Item[] {
  return messages.map((message, index): Item => {
    const id = `bench_${copy}_${index}`;
    const text = typeof message.content === 'string' ? message.content : '';
    switch (message.role) {
      case 'system':
        return { kind: 'context', id, text };
      case 'user':
        return { kind: 'user', id, content: text };
      case 'tool':
        return {
          kind: 'toolResult',
          id,
          callId: message.tool_call_id,
          toolName: '',
          content: text,
          isError: false,
        };
      default:
        return {
          kind: 'assistant',
          id,
          ...(typeof message.content === 'string' ? { text } : {}),
          ...(message.tool_calls === undefined
            ? {}
            : {
                toolCalls: message.tool_calls.map((call: ChatMessage) => ({
                  id: `${call.id}_${copy}`,
                  name: call.function.name,
                  arguments: call.function.arguments,
                })),
              }),
        };
    }
  });
}

function time<T>(run: () => T): { result: T; milliseconds: number } {
  const start = performance.now();
  const result = run();
  return { result, milliseconds: performance.now() - start };
}

/** Cold runs, each with fresh ids, a fresh counter and an empty merge cache; medians reported. */
const RUNS = 5;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export async function runTokensBench(): Promise<readonly BenchRow[]> {
  const rows: BenchRow[] = [];
  const loadStart = performance.now();
  const probe = await createTokenCounter();
  rows.push({
    scenario: 'load o200k_base (first createTokenCounter)',
    items: 0,
    tokens: 0,
    milliseconds: performance.now() - loadStart,
  });
  // Loaded already, so this import is free; it lets cold runs start from an empty merge cache.
  const { clearMergeCache } = await import('gpt-tokenizer/encoding/o200k_base');

  const fixtures = loadTranscriptFixtures();
  const sized = fixtures.map((fixture) => ({
    fixture,
    tokens: probe.count(toItems(fixture.messages, -1)),
  }));
  const largest = sized.reduce((best, next) => (next.tokens > best.tokens ? next : best));
  const copies = Math.ceil(TARGET_TOKENS / largest.tokens);
  const session = (run: number) =>
    Array.from({ length: copies }, (_, copy) =>
      toItems(largest.fixture.messages, run * copies + copy),
    ).flat();

  const cold: number[] = [];
  const warm: number[] = [];
  const grown: number[] = [];
  let items: Item[] = [];
  let tokens = 0;
  let grownTokens = 0;
  for (let run = 0; run < RUNS; run += 1) {
    items = session(run);
    clearMergeCache();
    const counter = await createTokenCounter();
    const first = time(() => counter.count(items));
    cold.push(first.milliseconds);
    tokens = first.result;
    // Warm counts take well under a millisecond, so one GC pause would dominate: take many.
    for (let repeat = 0; repeat < 20; repeat += 1) {
      warm.push(time(() => counter.count(items)).milliseconds);
    }
    const next = [...items, ...toItems(largest.fixture.messages.slice(1, 3), -2 - run)];
    const incremental = time(() => counter.count(next));
    grown.push(incremental.milliseconds);
    grownTokens = incremental.result;
  }
  const name = `${largest.fixture.file} x${copies}`;
  rows.push({ scenario: `cold: ${name}`, items: items.length, tokens, milliseconds: median(cold) });
  rows.push({
    scenario: `warm: ${name} again`,
    items: items.length,
    tokens,
    milliseconds: median(warm),
  });
  rows.push({
    scenario: 'warm + 2 new items',
    items: items.length + 2,
    tokens: grownTokens,
    milliseconds: median(grown),
  });

  const line =
    '2026-11-03T12:00:01.123Z INFO  [worker-7] GET /api/v1/items?page=3 status=200 duration=12ms user="alice"\n';
  const log = line.repeat(Math.ceil(10_000_000 / line.length));
  const logCount = time(() => probe.countText(log));
  rows.push({
    scenario: '10 MB log output (countText)',
    items: 1,
    tokens: logCount.result,
    milliseconds: logCount.milliseconds,
  });
  const base64 = randomBytes(7_500_000).toString('base64');
  const base64Count = time(() => probe.countText(base64));
  rows.push({
    scenario: '10 MB random base64 (countText)',
    items: 1,
    tokens: base64Count.result,
    milliseconds: base64Count.milliseconds,
  });
  return rows;
}

function formatTable(rows: readonly BenchRow[]): string {
  const lines = ['| scenario | items | tokens | ms |', '|---|---:|---:|---:|'];
  for (const row of rows) {
    lines.push(
      `| ${row.scenario} | ${row.items} | ${row.tokens} | ${row.milliseconds.toFixed(1)} |`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(`Node ${process.version}, ${new Date().toISOString()}\n`);
  console.log(formatTable(await runTokensBench()));
}
