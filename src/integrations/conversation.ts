import { ProtocolError } from '../errors/protocol-error.js';
import { ProtocolTracker } from '../runtime/protocol-tracker.js';
import type { Item } from '../transcript/types.js';
import { validateTranscript } from '../transcript/validate-transcript.js';

/** How one framework's messages become items and back. */
export interface MessageCodec<M> {
  /** Items of `messages`, the first of which sits at `startIndex` of the conversation. */
  read(options: { messages: readonly M[]; startIndex: number; idPrefix: string }): Item[];
  /** Renders `items` onto the end of `into`; `previous` is the item rendered last. */
  render(options: { into: M[]; items: readonly Item[]; previous: Item | undefined }): void;
  /** Whether two messages are the same (a framework may hand over copies). */
  same(left: M, right: M): boolean;
}

/**
 * One conversation of an agent framework as loopkeeper holds it: the messages the framework
 * handed over (by reference), the effective history they project to, and that history rendered
 * back as the framework's messages. Between compactions both lists only grow at their end, so
 * every request is the previous one plus the new messages and the provider's prompt cache stays
 * warm. Following new messages costs O(new messages).
 */
export class Conversation<M> {
  readonly idPrefix: string;
  readonly #codec: MessageCodec<M>;
  #seen: M[] = [];
  #items: Item[] = [];
  #rendered: M[] = [];
  readonly #originals = new Map<string, Item>();
  readonly #tracker = new ProtocolTracker();
  /** How many compactions replaced the history; the rendered list is append-only within one. */
  epoch = 0;

  constructor({ idPrefix, codec }: { readonly idPrefix: string; readonly codec: MessageCodec<M> }) {
    this.idPrefix = idPrefix;
    this.#codec = codec;
  }

  get items(): readonly Item[] {
    return this.#items;
  }

  get messageCount(): number {
    return this.#seen.length;
  }

  /** A copy of the rendered history: what the next request sends. */
  messages(): M[] {
    return this.#rendered.slice();
  }

  /** The first `count` messages seen, as the framework handed them over. */
  seenPrefix(count: number): M[] {
    return this.#seen.slice(0, count);
  }

  /** The item first converted under `id`, before any strategy changed it. */
  original(id: string): Item | undefined {
    return this.#originals.get(id);
  }

  /**
   * Whether `messages` continues what was seen: the same list, grown at its end. Checked by
   * identity at both ends first (frameworks hand over the same objects step after step), by
   * the codec otherwise.
   */
  continuedBy(messages: readonly M[]): boolean {
    const seen = this.#seen;
    if (messages.length < seen.length) return false;
    if (seen.length === 0) return true;
    if (messages[0] === seen[0] && messages[seen.length - 1] === seen[seen.length - 1]) return true;
    return seen.every((message, index) => this.#codec.same(message, messages[index] as M));
  }

  /**
   * Converts and appends the messages after the ones seen; returns the new items. A break of
   * the tool-call protocol is refused with a `ProtocolError` before anything changes.
   */
  append(messages: readonly M[]): Item[] {
    const fresh = messages.slice(this.#seen.length);
    const items = this.#codec.read({
      messages: fresh,
      idPrefix: this.idPrefix,
      startIndex: this.#seen.length,
    });
    const problem = this.#tracker.check(items, this.#items.length);
    if (problem !== null) throw new ProtocolError({ problems: [problem] });
    this.#tracker.observe(items);
    const previous = this.#items[this.#items.length - 1];
    this.#codec.render({ into: this.#rendered, items, previous });
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
    const rendered: M[] = [];
    this.#codec.render({ into: rendered, items, previous: undefined });
    this.#items = [...items];
    this.#rendered = rendered;
    this.epoch += 1;
  }
}
