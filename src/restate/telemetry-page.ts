import { type ObjectSharedContext, RestatePromise } from '@restatedev/restate-sdk';
import type { TelemetryPage } from './loop-object-types.js';
import { stateKeys } from './state-keys.js';
import type { TelemetryRecord } from './telemetry-recorder.js';

/**
 * Recorded telemetry `fromSeq..` (at most `limit` records), read in one batch: with lazy state
 * each read awaited alone would cost a round trip to the server.
 */
export async function readTelemetryPage(
  context: ObjectSharedContext,
  { fromSeq, limit }: { readonly fromSeq: number; readonly limit: number },
): Promise<TelemetryPage> {
  const count = (await context.get<number>(stateKeys.telemetryCount)) ?? 0;
  const toSeq = Math.min(count, fromSeq + limit - 1);
  const reads: RestatePromise<TelemetryRecord | null>[] = [];
  for (let seq = fromSeq; seq <= toSeq; seq += 1) {
    reads.push(
      context.get<TelemetryRecord>(
        stateKeys.telemetry(seq),
      ) as unknown as RestatePromise<TelemetryRecord | null>,
    );
  }
  const records = reads.length === 0 ? [] : await RestatePromise.all(reads);
  const events = records.filter((record): record is TelemetryRecord => record !== null);
  return { events, nextSeq: Math.max(fromSeq, toSeq + 1) };
}
