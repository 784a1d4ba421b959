import type { ModelUsage } from '../model/types.js';
import type { Item } from '../transcript/types.js';
import { type SerializedError, serializeError } from '../vocabulary/index.js';
import type { LoopSession } from './loop-session.js';

/** What one run added to the session, as its log records it. */
export interface TurnRecord {
  /** Text of the run's last assistant item that has text; null when it wrote none. */
  readonly text: string | null;
  /** Every item the run appended, in order: its user item, answers, tool results. */
  readonly itemsAdded: readonly Item[];
  /** Usage summed over the run's inferences (zeros when the model reported none). */
  readonly usage: ModelUsage;
  /**
   * Set when the run finished but its events could not be read back (the store failed after
   * the run was logged): `text` is null, `itemsAdded` empty and `usage` zeros, while the
   * outcome is still the run's. Read the session later for the rest; do not send again.
   */
  readonly recordError?: SerializedError;
}

/** The record of a finished run whose events could not be read back. */
export function unavailableRecord(error: unknown): TurnRecord {
  return {
    text: null,
    itemsAdded: [],
    usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0 },
    recordError: serializeError(error),
  };
}

/**
 * Reads the run's own events back from the store, so the record is what was logged, whatever a
 * compaction did to the projection meanwhile. `at` is when the log recorded the run's last event
 * (undefined when it holds none): a stamp the store made, so a durable session that replays the
 * run gets the same one, where the clock would not.
 */
export async function turnRecord({
  session,
  runId,
  fromSeq,
}: {
  readonly session: LoopSession;
  readonly runId: string;
  readonly fromSeq: number;
}): Promise<{ readonly record: TurnRecord; readonly at: number | undefined }> {
  const itemsAdded: Item[] = [];
  let at: number | undefined;
  let promptTokens = 0;
  let completionTokens = 0;
  let cachedTokens = 0;
  for await (const event of session.store.read(session.sessionId, { fromSeq })) {
    if (event.runId !== runId) continue;
    at = Date.parse(event.at);
    if (event.type === 'items-appended') itemsAdded.push(...event.items);
    if (event.type === 'usage-reported') {
      promptTokens += event.promptTokens;
      completionTokens += event.completionTokens;
      cachedTokens += event.cachedTokens ?? 0;
    }
  }
  const text = itemsAdded.findLast(
    (item) => item.kind === 'assistant' && item.text !== undefined && item.text !== '',
  );
  return {
    record: {
      text: text?.kind === 'assistant' ? (text.text ?? null) : null,
      itemsAdded,
      usage: { promptTokens, completionTokens, cachedTokens },
    },
    at,
  };
}
