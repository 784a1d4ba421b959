import { type AnyActorRef, fromPromise, type PromiseActorLogic } from 'xstate';
import type { ActorInvocation } from '../../../machines/agent-loop.types.js';
import { replacedItemId } from '../../compaction/helpers/derived-item.js';
import type { CompactingLoop, MutationMarker } from '../../compaction/types.js';
import type { TelemetryEvent } from '../../events/telemetry-events.js';
import { buildReplacementView } from '../../log/replacement-view.js';
import type { Item } from '../../transcript/types.js';
import { type LoopServices, servicesOf } from '../loop-services.js';
import type { LoopSession } from '../loop-session.js';

/** What an invoked actor is given, as XState's promise actors get it. */
type PromiseActorArguments<Output, Input> = Parameters<
  Parameters<typeof fromPromise<Output, Input>>[0]
>[0];

/**
 * A promise actor shared by every loop: each invocation runs `body` with the services of the
 * loop that invoked it, so no loop needs actors (or a machine) of its own.
 */
export function loopActor<Output, Input extends ActorInvocation>(
  body: (services: LoopServices, options: PromiseActorArguments<Output, Input>) => Promise<Output>,
): PromiseActorLogic<Output, Input> {
  return fromPromise<Output, Input>(async (options) =>
    body(servicesOf(options.input.loop), options),
  );
}

/**
 * Hands telemetry produced inside an invoked actor to the listeners of the loop actor that
 * invoked it (`loop.on`), the same way the machine's own `emit` actions reach them. Works the
 * same for a root loop and for a loop spawned as a child.
 */
export function forward(loop: AnyActorRef, event: TelemetryEvent): void {
  servicesOf(loop).emit(event);
}

/** The loop a compaction or mutator runs for, as its backends are handed it. */
export function compactingLoop(input: ActorInvocation, actor: AnyActorRef): CompactingLoop {
  return {
    sessionId: input.sessionId,
    runId: input.runId,
    actor,
    emit: (event) => forward(input.loop, event),
  };
}

/** Logs a compaction or mutation as one `transcript-replaced` marker for the active run. */
export async function recordReplacement(
  session: LoopSession,
  runId: string,
  previous: readonly Item[],
  next: readonly Item[],
  marker: MutationMarker,
): Promise<void> {
  await session.appendForRun(runId, [
    {
      type: 'transcript-replaced',
      runId,
      throughSeq: session.lastSeq,
      view: buildReplacementView({ previous, next, originOf: replacedItemId }),
      reason: marker.reason,
      tier: marker.tier,
      strategies: marker.strategies,
      tokensBefore: marker.tokensBefore,
      tokensAfter: marker.tokensAfter,
    },
  ]);
}
