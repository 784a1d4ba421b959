import type { Item } from '../../transcript/types.js';
import { sameItems } from '../helpers/same-items.js';
import { ArtifactLedger, type ItemLedgerFacts, ledgerFactsOf } from './artifact-ledger.js';

/**
 * `ledgerOf` for a strategy that compacts without the loop's ledger, remembering what it found:
 * each item's facts (`ledgerFactsOf`) are found once, so a ledger of items seen before is only
 * folded, and the ledger of the latest list is kept whole, so a compaction run again over the
 * same items (a retry) gets it back without folding. Items never change and are compared as
 * objects, so a remembered ledger is never one of other items. The ledgers it returns must not
 * be appended to: the next call may return the same one.
 */
export function createLedgerMemo(): (items: readonly Item[]) => ArtifactLedger {
  // Held as long as the items are: a compactor outlives the transcripts it compacted. Made at
  // the first compaction: a compactor of a loop that never compacts holds no map.
  let facts: WeakMap<Item, ItemLedgerFacts> | undefined;
  const factsOf = (item: Item): ItemLedgerFacts => {
    facts ??= new WeakMap();
    let found = facts.get(item);
    if (found === undefined) {
      found = ledgerFactsOf(item);
      facts.set(item, found);
    }
    return found;
  };
  let latest: { readonly items: readonly Item[]; readonly ledger: ArtifactLedger } | undefined;
  return (items) => {
    if (latest !== undefined && sameItems(latest.items, items)) return latest.ledger;
    const ledger = new ArtifactLedger();
    ledger.appendWith(items, factsOf);
    latest = { items: [...items], ledger };
    return ledger;
  };
}
