import { AsyncLocalStorage } from 'node:async_hooks';
import type { AnyActorRef } from 'xstate';
import type { TelemetryEvent } from '../events/telemetry-events.js';

/**
 * Where a compaction is running: the loop's invoked actor doing it, and the run it serves. A
 * summarizer that runs a loop of its own (the agent summarizer) spawns it as a child of
 * `parent`, in the same actor system, and reports its telemetry through `forward`.
 */
export interface CompactionScope {
  readonly parent: AnyActorRef;
  readonly sessionId: string;
  readonly runId: string;
  /** Emits an event from the loop that is compacting, to that loop's listeners. */
  forward(event: TelemetryEvent): void;
}

// Ambient rather than an argument: backends are called deep inside strategies whose signatures
// are public and shared with hosts, and most backends have no use for a parent actor.
const scopes = new AsyncLocalStorage<CompactionScope>();

/** Runs `work` with `scope` visible to every backend it calls, however deep. */
export function runInCompactionScope<T>(
  scope: CompactionScope,
  work: () => Promise<T>,
): Promise<T> {
  return scopes.run(scope, work);
}

/** The compaction the caller runs inside, or undefined outside any loop. */
export function currentCompactionScope(): CompactionScope | undefined {
  return scopes.getStore();
}
