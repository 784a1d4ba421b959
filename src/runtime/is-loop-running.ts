import type { AnyActorRef } from 'xstate';

/** XState's processing status of a started, not yet stopped actor. */
const RUNNING = 1;

/**
 * Whether the actor processes events now. XState has no public "started" flag: an actor that
 * was never started reports an `active` snapshot and silently defers what it is sent, so the
 * pinned version's processing status is read where present (the runTurn tests pin it down),
 * and the snapshot status (`stopped`, `done` after `close`, `error`) otherwise.
 */
export function isLoopRunning(actor: AnyActorRef): boolean {
  if (actor.getSnapshot().status !== 'active') return false;
  const processing = (actor as { _processingStatus?: unknown })._processingStatus;
  return typeof processing === 'number' ? processing === RUNNING : true;
}
