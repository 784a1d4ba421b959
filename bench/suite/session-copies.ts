import type { Item } from '../../src/transcript/types.js';

/** A copy of items with fresh item ids and call ids (suffixed), so copies can share one log. */
export function copyItems(items: readonly Item[], suffix: string): Item[] {
  return items.map((item): Item => {
    const id = `${item.id}~${suffix}`;
    switch (item.kind) {
      case 'assistant':
        return item.toolCalls === undefined
          ? { ...item, id }
          : {
              ...item,
              id,
              toolCalls: item.toolCalls.map((call) => ({ ...call, id: `${call.id}~${suffix}` })),
            };
      case 'toolResult':
        return { ...item, id, callId: `${item.callId}~${suffix}` };
      default:
        return { ...item, id };
    }
  });
}
