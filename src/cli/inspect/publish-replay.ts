import type { createInspector } from '@statelyai/inspect';
import type { ReplayStep } from './replay-steps.js';

/** What a replay uses of an inspector from `@statelyai/inspect`. */
export type ReplayInspector = Pick<
  ReturnType<typeof createInspector>,
  'actor' | 'event' | 'snapshot'
>;
type ActorLike = Parameters<ReplayInspector['actor']>[0];

/** Inspector ids of the replayed loop and of the listeners its telemetry goes to. */
export const REPLAY_ACTOR_ID = 'agentLoop';
export const TELEMETRY_ACTOR_ID = 'telemetry';

/**
 * Sends a replay to an inspector as the live loop would appear: the loop actor (with the
 * machine's definition, so the viewer draws it), then for each step the event it received, its
 * new snapshot, and each telemetry event as an event from the loop to a `telemetry` actor.
 */
export async function publishReplay({
  inspector,
  steps,
  definition,
  sessionId,
  stepDelayMs = 0,
}: {
  readonly inspector: ReplayInspector;
  readonly steps: readonly ReplayStep[];
  /** The machine config (`agentLoopMachine.config`). */
  readonly definition: object;
  readonly sessionId: string;
  readonly stepDelayMs?: number;
}): Promise<void> {
  const initial = steps[0]?.context;
  // The inspector reads the definition from `logic.config`, as it does for a live actor.
  const loop = {
    sessionId: REPLAY_ACTOR_ID,
    id: `agentLoop:${sessionId}`,
    logic: { config: definition },
    send: () => {},
    getSnapshot: () => undefined,
  } as unknown as ActorLike;
  inspector.actor(loop, { status: 'active', value: 'idle', context: initial });
  inspector.actor(TELEMETRY_ACTOR_ID, { status: 'active', context: { sessionId } });
  for (const step of steps) {
    if (step.event.type === 'user.message') {
      inspector.event(REPLAY_ACTOR_ID, step.event, { source: 'host' });
    } else {
      inspector.event(REPLAY_ACTOR_ID, step.event);
    }
    inspector.snapshot(
      REPLAY_ACTOR_ID,
      { status: 'active', value: stateValueOf(step.state), context: step.context },
      { event: step.event },
    );
    for (const event of step.telemetry) {
      inspector.event(TELEMETRY_ACTOR_ID, { ...event }, { source: REPLAY_ACTOR_ID });
    }
    if (stepDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, stepDelayMs));
  }
}

/** A state path as the machine's snapshot value: `running.inferring` is `{running: 'inferring'}`. */
export function stateValueOf(path: string): string | Readonly<Record<string, string>> {
  const [parent, child] = path.split('.');
  return child === undefined || parent === undefined ? path : { [parent]: child };
}
