import { buildSessionContext, type SessionEntry } from '@mariozechner/pi-coding-agent';
import type { Item } from '../../../src/transcript/types.js';
// prepareCompaction and estimateContextTokens are not exported from the package root (its
// exports map lists only "." and "./hooks"), so they are imported from their module file.
import {
  type CompactionPreparation,
  type CompactionSettings,
  estimateContextTokens,
  prepareCompaction,
  shouldCompact,
} from '../../node_modules/@mariozechner/pi-coding-agent/dist/core/compaction/compaction.js';

export type PiMessage = Extract<SessionEntry, { type: 'message' }>['message'];

function parseArguments(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return { raw: text };
  }
}

function usage(input: number, output: number) {
  const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
  return { input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output, cost: zero };
}

/**
 * pi session entries (a linked path, as pi stores them), one per item. Assistant messages carry
 * the usage a provider would have reported: the prompt before them and their own tokens. pi has
 * no system message inside a session, so context items become user messages.
 */
export function toPiEntries(items: readonly Item[], itemTokens: readonly number[]): SessionEntry[] {
  let promptTokens = 0;
  let parentId: string | null = null;
  const timestamp = Date.UTC(2026, 10, 1);
  return items.map((item, index): SessionEntry => {
    const own = itemTokens[index] ?? 0;
    let message: PiMessage;
    switch (item.kind) {
      case 'context':
        message = { role: 'user', content: item.text, timestamp };
        break;
      case 'user':
        message = {
          role: 'user',
          content:
            typeof item.content === 'string'
              ? item.content
              : item.content.map((part) => (part.type === 'text' ? part.text : '')).join(''),
          timestamp,
        };
        break;
      case 'assistant':
        message = {
          role: 'assistant',
          content: [
            ...(item.reasoning ?? []).map((part) => ({
              type: 'thinking' as const,
              thinking: part.text,
            })),
            ...(item.text === undefined ? [] : [{ type: 'text' as const, text: item.text }]),
            ...(item.toolCalls ?? []).map((call) => ({
              type: 'toolCall' as const,
              id: call.id,
              name: call.name,
              arguments: parseArguments(call.arguments),
            })),
          ],
          api: 'openai-completions',
          provider: 'openai',
          model: 'gpt-4o',
          usage: usage(promptTokens, own),
          stopReason: (item.toolCalls?.length ?? 0) > 0 ? 'toolUse' : 'stop',
          timestamp,
        };
        break;
      case 'toolResult':
        message = {
          role: 'toolResult',
          toolCallId: item.callId,
          toolName: item.toolName,
          content: [{ type: 'text', text: item.content }],
          isError: item.isError,
          timestamp,
        };
        break;
    }
    promptTokens += own;
    const entry: SessionEntry = {
      type: 'message',
      id: item.id,
      parentId,
      timestamp: new Date(timestamp).toISOString(),
      message,
    };
    parentId = item.id;
    return entry;
  });
}

export function piSettings({
  keepRecentTokens,
  reserveTokens,
}: {
  readonly keepRecentTokens: number;
  readonly reserveTokens: number;
}): CompactionSettings {
  return { enabled: true, reserveTokens, keepRecentTokens };
}

/** What pi runs after every turn: the context estimate (reported usage + chars/4) and the threshold. */
export function piThresholdCheck({
  messages,
  contextWindow,
  settings,
}: {
  readonly messages: PiMessage[];
  readonly contextWindow: number;
  readonly settings: CompactionSettings;
}): boolean {
  return shouldCompact(estimateContextTokens(messages).tokens, contextWindow, settings);
}

/** pi's compaction preparation: where to cut, and what to hand the summarizer. */
export function piPrepare({
  entries,
  settings,
}: {
  readonly entries: SessionEntry[];
  readonly settings: CompactionSettings;
}): CompactionPreparation | undefined {
  return prepareCompaction(entries, settings);
}

/**
 * The items pi keeps after a compaction: everything from the first kept entry. The summary pi
 * puts before them needs an LLM call and is not part of this count.
 */
export function piKeptItems({
  firstKeptEntryId,
  items,
}: {
  readonly firstKeptEntryId: string | undefined;
  readonly items: readonly Item[];
}): Item[] {
  if (firstKeptEntryId === undefined) return [...items];
  const index = items.findIndex((item) => item.id === firstKeptEntryId);
  return index === -1 ? [...items] : items.slice(index);
}

/**
 * A pi session as pi's agent runs it turn by turn: the session path grows, each assistant
 * message carries the usage its provider reported (the context it was sent), and after each
 * turn pi checks `shouldCompact` on `estimateContextTokens`; only when that fires does it run
 * `prepareCompaction`, append a compaction entry and rebuild the context with
 * `buildSessionContext`. The summary itself is an LLM call pi makes; it is not run here, and a
 * one-line stand-in takes its place.
 */
export class PiSession {
  readonly #entries: SessionEntry[] = [];
  #messages: PiMessage[] = [];
  readonly #settings: CompactionSettings;
  readonly #contextWindow: number;
  readonly #tokensById = new Map<string, number>();
  #contextTokens = 0;
  #leaf: string | null = null;
  #compactions = 0;

  constructor({
    settings,
    contextWindow,
  }: {
    readonly settings: CompactionSettings;
    readonly contextWindow: number;
  }) {
    this.#settings = settings;
    this.#contextWindow = contextWindow;
  }

  get compactions(): number {
    return this.#compactions;
  }

  /** Appends one entry (a push, untimed), its message stamped with the usage of the context. */
  grow(entry: SessionEntry, tokens: number): void {
    if (entry.type !== 'message') return;
    const message =
      entry.message.role === 'assistant'
        ? {
            ...entry.message,
            usage: {
              ...entry.message.usage,
              input: this.#contextTokens,
              totalTokens: this.#contextTokens + entry.message.usage.output,
            },
          }
        : entry.message;
    const stamped: SessionEntry = { ...entry, parentId: this.#leaf, message };
    this.#entries.push(stamped);
    this.#messages.push(message);
    this.#leaf = entry.id;
    this.#tokensById.set(entry.id, tokens);
    this.#contextTokens += tokens;
  }

  /** What pi runs after a turn: the threshold check, and the compaction's preparation when it fires. */
  afterTurn(): boolean {
    const fires = piThresholdCheck({
      messages: this.#messages,
      contextWindow: this.#contextWindow,
      settings: this.#settings,
    });
    if (!fires) return false;
    const preparation = prepareCompaction(this.#entries, this.#settings);
    if (preparation === undefined) return false;
    const id = `pi-compaction-${this.#compactions}`;
    this.#entries.push({
      type: 'compaction',
      id,
      parentId: this.#leaf,
      timestamp: new Date(Date.UTC(2026, 10, 1)).toISOString(),
      summary: `Summary ${this.#compactions} of the earlier conversation (an LLM call in pi; not run here).`,
      firstKeptEntryId: preparation.firstKeptEntryId,
      tokensBefore: preparation.tokensBefore,
    });
    this.#leaf = id;
    this.#messages = buildSessionContext(this.#entries).messages as PiMessage[];
    const kept = this.#entries.findIndex((entry) => entry.id === preparation.firstKeptEntryId);
    this.#contextTokens = 20;
    for (const entry of this.#entries.slice(kept)) {
      this.#contextTokens += this.#tokensById.get(entry.id) ?? 0;
    }
    this.#compactions += 1;
    return true;
  }
}
