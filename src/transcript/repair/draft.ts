import type { Item, Repair } from '../types.js';

/** One surviving item on its way to the output; `newId` is set once its id has to change. */
export interface Draft {
  readonly index: number;
  item: Item;
  newId?: string;
}

/** A repair about `draft`, naming its input id and, once it has one, its new id. */
export function repairOf(
  draft: Draft,
  id: string,
  repair: Omit<Repair, 'index' | 'id' | 'newId'>,
): Repair {
  return {
    ...repair,
    index: draft.index,
    id,
    ...(draft.newId === undefined ? {} : { newId: draft.newId }),
  };
}

/** The item as it leaves the repair, under its new id if it got one. */
export function finish(draft: Draft): Item {
  return draft.newId === undefined ? draft.item : { ...draft.item, id: draft.newId };
}
