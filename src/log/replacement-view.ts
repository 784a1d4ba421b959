import { ConfigError } from '../errors/index.js';
import type { Item } from '../transcript/types.js';
import type { ViewEntry } from './events.js';
import { jsonEqual } from './json-equal.js';

/**
 * Turns a new transcript into the view of a `transcript-replaced` marker, keeping the marker
 * small: an item of `previous` kept unchanged becomes `{ref}`; a new item is held inline, with
 * `replaces` naming the original it stands in for (a pruned tool result answering the same
 * call). `previous` must be the effective history the marker replaces, so every ref resolves.
 *
 * An item that kept an id but changed its content is refused with `ConfigError`
 * (`item_id_reused`): ids name immutable content, and token counts are cached by id.
 *
 * @example
 * ```ts
 * import { buildReplacementView } from 'loopkeeper/log';
 * import type { Item } from 'loopkeeper';
 *
 * const previous: Item[] = [
 *   { kind: 'user', id: 'u1', content: 'Hello' },
 *   { kind: 'assistant', id: 'a1', text: 'Hi.' },
 * ];
 * // Kept items become small refs; new items (a summary) are stored inline.
 * const view = buildReplacementView({ previous, next: [previous[1] as Item] });
 * console.log(view);
 * ```
 */
export function buildReplacementView({
  previous,
  next,
  originOf,
}: {
  readonly previous: readonly Item[];
  readonly next: readonly Item[];
  /** The id of the item a changed copy stands in for, when the caller knows it. */
  readonly originOf?: (item: Item) => string | undefined;
}): ViewEntry[] {
  const previousById = new Map<string, Item>();
  const resultIdByCallId = new Map<string, string>();
  for (const item of previous) {
    previousById.set(item.id, item);
    if (item.kind === 'toolResult') resultIdByCallId.set(item.callId, item.id);
  }
  return next.map((item, index): ViewEntry => {
    const kept = previousById.get(item.id);
    if (kept !== undefined) {
      if (kept === item || jsonEqual(kept, item)) return { ref: item.id };
      throw new ConfigError(
        `Item ${index} (${item.id}) keeps the id of an earlier item but changed its content; give a changed item a new id`,
        { code: 'item_id_reused' },
      );
    }
    const origin = originOf?.(item);
    if (origin !== undefined && previousById.has(origin)) return { item, replaces: origin };
    if (item.kind === 'toolResult') {
      const original = resultIdByCallId.get(item.callId);
      if (original !== undefined) return { item, replaces: original };
    }
    return { item };
  });
}
