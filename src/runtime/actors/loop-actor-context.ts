import { type AnyActorRef, fromPromise, type PromiseActorLogic } from 'xstate';
import type { ActorInvocation } from '../../../machines/agent-loop.types.js';
import type { Compactor } from '../../compaction/compactor.js';
import { replacedItemId } from '../../compaction/helpers/derived-item.js';
import type { CompactingLoop, LoopMutator, MutationMarker } from '../../compaction/types.js';
import type { TelemetryEvent } from '../../events/telemetry-events.js';
import { buildReplacementView } from '../../log/replacement-view.js';
import type { ModelAdapter, ToolSpec } from '../../model/types.js';
import type { ToolRegistry } from '../../tools/tool-registry.js';
import type { AnyToolDefinition } from '../../tools/types.js';
import type { Item } from '../../transcript/types.js';
import type { CompactionFloor } from '../compaction-floor.js';
import type { LoopSession } from '../loop-session.js';
import type { PromptOverhead } from '../prompt-overhead.js';

/** What the actor implementations of one loop share. */
export interface LoopActorContext {
  readonly session: LoopSession;
  readonly model: ModelAdapter;
  readonly tools: readonly AnyToolDefinition[];
  readonly instructions: string | undefined;
  readonly mutators: readonly LoopMutator[];
  readonly compactor: Compactor | undefined;
  readonly toolTimeoutMs: number | undefined;
  /** The loop's tools by name, built and checked once when the loop is made. */
  readonly registry: ToolRegistry;
  /** The most tool calls that run at once. */
  readonly maxParallelTools: number;
  /** What the model is told about the tools, computed once. */
  readonly specs: readonly ToolSpec[];
  /** Tokens of a request outside its items, for budget checks between usage reports. */
  readonly overhead: PromptOverhead;
  /** What the last emergency prune left above the line, so the next steps do not redo it. */
  readonly floor: CompactionFloor;
}

/**
 * Where a loop's logic keeps its `LoopActorContext`. The logic is the one shared machine
 * definition plus this pointer (see `bindLoopContext`), so the invoked actors, shared by every
 * loop, find their loop's session, model and tools through the loop actor that invoked them,
 * which the machine passes in every invocation's input (`ActorInvocation.loop`).
 */
export const LOOP_ACTOR_CONTEXT: unique symbol = Symbol('loopkeeper.loopActorContext');

/** What an invoked actor is given, as XState's promise actors get it. */
type PromiseActorArguments<Output, Input> = Parameters<
  Parameters<typeof fromPromise<Output, Input>>[0]
>[0];

/**
 * A promise actor shared by every loop: each invocation runs `body` with the context of the loop
 * that invoked it, so no loop needs actors (or a machine) of its own.
 */
export function loopActor<Output, Input extends ActorInvocation>(
  body: (
    context: LoopActorContext,
    options: PromiseActorArguments<Output, Input>,
  ) => Promise<Output>,
): PromiseActorLogic<Output, Input> {
  return fromPromise<Output, Input>(async (options) =>
    body(loopContextOf(options.input.loop), options),
  );
}

/** The context of a loop made by `createAgentLoop` or `createAgentLoopLogic`, from its actor. */
export function loopContextOf(loop: AnyActorRef): LoopActorContext {
  // `Actor.logic` is public; read structurally, so a host's own copy of xstate works too.
  const logic = 'logic' in loop ? loop.logic : undefined;
  const context =
    typeof logic === 'object' && logic !== null && LOOP_ACTOR_CONTEXT in logic
      ? (logic[LOOP_ACTOR_CONTEXT] as LoopActorContext)
      : undefined;
  if (context === undefined) {
    throw new Error(
      'loopkeeper: an actor of the loop ran outside a loop made by createAgentLoop or createAgentLoopLogic',
    );
  }
  return context;
}

/**
 * Hands telemetry produced inside an invoked actor to the listeners of the loop actor that
 * invoked it (`loop.on`), the same way the machine's own `emit` actions reach them. Works the
 * same for a root loop and for a loop spawned as a child.
 */
export function forward(loop: AnyActorRef, event: TelemetryEvent): void {
  const emit = emitterOf(loop);
  if (emit !== undefined) emit(event);
  else loop.send({ type: 'loop.telemetry', event });
}

/**
 * The function XState's `emit` action calls on an actor (`Actor._actorScope.emit`): it hands an
 * event to the actor's listeners. Sending `loop.telemetry` instead costs a whole macrostep of the
 * loop machine (about as much as a tool call) for each event, several times a step. The scope
 * is not public API, so it is read structurally; without it the event goes through the machine.
 */
function emitterOf(loop: AnyActorRef): ((event: TelemetryEvent) => void) | undefined {
  const scope = (loop as { readonly _actorScope?: { readonly emit?: unknown } })._actorScope;
  return typeof scope?.emit === 'function'
    ? (scope.emit as (event: TelemetryEvent) => void)
    : undefined;
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
