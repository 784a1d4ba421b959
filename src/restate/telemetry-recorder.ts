import type { ObjectContext } from '@restatedev/restate-sdk';
import type { TelemetryEvent } from '../events/telemetry-events.js';
import type { DurableSteps } from './durable-steps.js';
import { stateKeys } from './state-keys.js';

/** A telemetry event as recorded in the object's state, numbered from 1 per session. */
export interface TelemetryRecord {
  readonly seq: number;
  readonly event: TelemetryEvent;
}

/**
 * Records the loop's telemetry in the object's state so hosts on other machines can page it by
 * seq. Events are written only from a journaled step's result, so a retried invocation records
 * exactly what the first attempt recorded: an event the replaying loop emits again is matched to
 * its recorded twin by identity (type, run, step, call, ...; never its clock fields) and dropped.
 */
export class TelemetryRecorder {
  readonly #context: ObjectContext;
  readonly #steps: DurableSteps;
  #pending: { readonly key: string; readonly event: TelemetryEvent }[] = [];
  /** Identities recorded by a step whose events this attempt has not emitted (yet). */
  readonly #recordedAhead = new Map<string, number>();
  readonly #occurrences = new Map<string, number>();
  #flushes = 0;
  /** Records in state, read once per invocation (each read is a round trip with lazy state). */
  #count: number | undefined;
  #queue: Promise<void> = Promise.resolve();

  constructor({ context, steps }: { context: ObjectContext; steps: DurableSteps }) {
    this.#context = context;
    this.#steps = steps;
  }

  observe(event: TelemetryEvent): void {
    const base = identityOf(event);
    const occurrence = this.#occurrences.get(base) ?? 0;
    this.#occurrences.set(base, occurrence + 1);
    const key = `${base}#${occurrence}`;
    const ahead = this.#recordedAhead.get(key) ?? 0;
    if (ahead > 0) {
      this.#recordedAhead.set(key, ahead - 1);
      return;
    }
    this.#pending.push({ key, event });
  }

  /** Writes what was observed since the last flush; flushes run one at a time, in order. */
  flush(): Promise<void> {
    const next = this.#queue.then(() => this.#flushNow());
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #flushNow(): Promise<void> {
    this.#flushes += 1;
    const outcome = await this.#steps.record(`telemetry ${this.#flushes}`, async () => ({
      ok: true as const,
      value: this.#pending.map(({ key, event }) => ({ key, event })),
    }));
    if (!outcome.ok || outcome.value.length === 0) return;
    const recorded = outcome.value;
    for (const { key } of recorded) {
      const index = this.#pending.findIndex((pending) => pending.key === key);
      if (index >= 0) this.#pending.splice(index, 1);
      else this.#recordedAhead.set(key, (this.#recordedAhead.get(key) ?? 0) + 1);
    }
    let count = this.#count ?? (await this.#context.get<number>(stateKeys.telemetryCount)) ?? 0;
    for (const { event } of recorded) {
      count += 1;
      this.#context.set(stateKeys.telemetry(count), { seq: count, event });
    }
    this.#context.set(stateKeys.telemetryCount, count);
    this.#count = count;
  }
}

/** What tells two emissions of one event apart from two different events; no clock fields. */
function identityOf(event: TelemetryEvent): string {
  const fields = event as unknown as Readonly<Record<string, unknown>>;
  const parts = [event.type, event.runId];
  for (const name of [
    'step',
    'index',
    'callId',
    'mutator',
    'point',
    'reason',
    'attempt',
    'source',
  ]) {
    if (fields[name] !== undefined) parts.push(`${name}=${String(fields[name])}`);
  }
  if (event.type === 'InferenceDelta') parts.push(event.delta);
  if (event.type === 'ChildLoopEmitted') parts.push(identityOf(event.event));
  return parts.join('|');
}
