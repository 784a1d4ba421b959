import { isDeepStrictEqual } from 'node:util';
import type { ModelMessage } from 'ai';
import { ProtocolError } from '../errors/protocol-error.js';
import { ProtocolTracker } from '../runtime/protocol-tracker.js';
import type { Item } from '../transcript/types.js';
import { validateTranscript } from '../transcript/validate-transcript.js';
import { fromModelMessages } from './from-model-messages.js';
import { appendModelMessages } from './to-model-messages.js';

/**
 * One AI SDK conversation as loopkeeper holds it: the messages the SDK handed over (by
 * reference), the effective history they project to, and that history rendered back as model
 * messages. Between compactions both lists only grow at their end, so every request is the
 * previous one plus the new messages and the provider's prompt cache stays warm.
 */
export class Conversation {
  readonly idPrefix: string;
  #seen: ModelMessage[] = [];
  #items: Item[] = [];
  #rendered: ModelMessage[] = [];
  readonly #originals = new Map<string, Item>();
  readonly #tracker = new ProtocolTracker();
  /** How many compactions replaced the history; the rendered list is append-only within one. */
  epoch = 0;

  constructor(idPrefix: string) {
    this.idPrefix = idPrefix;
  }

  get items(): readonly Item[] {
    return this.#items;
  }

  get messageCount(): number {
    return this.#seen.length;
  }

  /** A copy of the rendered history: what the next request sends. */
  messages(): ModelMessage[] {
    return this.#rendered.slice();
  }

  /** The first `count` messages seen, as the SDK handed them over. */
  seenPrefix(count: number): ModelMessage[] {
    return this.#seen.slice(0, count);
  }

  original(id: string): Item | undefined {
    return this.#originals.get(id);
  }

  /**
   * Whether `messages` continues what was seen: the same list, grown at its end. Checked by
   * identity first (the SDK hands over the same objects step after step), deeply otherwise.
   */
  continuedBy(messages: readonly ModelMessage[]): boolean {
    const seen = this.#seen;
    if (messages.length < seen.length) return false;
    if (seen.length === 0) return true;
    if (messages[0] === seen[0] && messages[seen.length - 1] === seen[seen.length - 1]) return true;
    return seen.every((message, index) => isDeepStrictEqual(message, messages[index]));
  }

  /**
   * Converts and appends the messages after the ones seen; returns the new items. A break of
   * the tool-call protocol is refused with a `ProtocolError` before anything changes.
   */
  append(messages: readonly ModelMessage[]): Item[] {
    const fresh = messages.slice(this.#seen.length);
    const items = fromModelMessages({
      messages: fresh,
      idPrefix: this.idPrefix,
      startIndex: this.#seen.length,
    });
    const problem = this.#tracker.check(items, this.#items.length);
    if (problem !== null) throw new ProtocolError({ problems: [problem] });
    this.#tracker.observe(items);
    const previous = this.#items[this.#items.length - 1];
    appendModelMessages({ messages: this.#rendered, items, previous });
    this.#items.push(...items);
    this.#seen.push(...fresh);
    for (const item of items) this.#originals.set(item.id, item);
    return items;
  }

  /** Installs a compacted history after validating it; renders it anew. */
  replace(items: readonly Item[]): void {
    const problems = validateTranscript(items);
    if (problems.length > 0) throw new ProtocolError({ problems });
    this.#tracker.reset(items);
    const rendered: ModelMessage[] = [];
    appendModelMessages({ messages: rendered, items, previous: undefined });
    this.#items = [...items];
    this.#rendered = rendered;
    this.epoch += 1;
  }
}
