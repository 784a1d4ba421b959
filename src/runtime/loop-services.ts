import type { AnyActorRef } from 'xstate';
import { CompactionController } from '../compaction/compaction-controller.js';
import type { Compactor } from '../compaction/compactor.js';
import type { LoopMutator } from '../compaction/types.js';
import type { TelemetryEvent } from '../events/telemetry-events.js';
import type { ModelAdapter, ToolSpec } from '../model/types.js';
import { createToolRegistry, type ToolRegistry } from '../tools/tool-registry.js';
import type { AnyToolDefinition } from '../tools/types.js';
import type { LoopSession } from './loop-session.js';
import { PromptOverhead } from './prompt-overhead.js';

export interface LoopServicesOptions {
  readonly session: LoopSession;
  readonly model: ModelAdapter;
  readonly tools: readonly AnyToolDefinition[];
  readonly instructions: string | undefined;
  readonly mutators: readonly LoopMutator[];
  readonly compactor: Compactor | undefined;
  readonly toolTimeoutMs: number | undefined;
  /** The most tool calls that run at once. */
  readonly maxParallelTools: number;
}

/**
 * Everything one loop's invoked actors work with: its session, model, tools (the registry and
 * the specs the model is told about, built once), mutators, the compaction controller (the
 * compactor's policy for this loop), and the telemetry sink that reaches the loop's listeners.
 *
 * One route reaches it: the loop's creation input carries it (`AgentLoopInput.services`, which
 * the machine never reads, so its context stays small and serializable), and every invocation
 * input carries the loop (`ActorInvocation.loop`), so an invoked actor finds its services with
 * `servicesOf(input.loop)`. When XState creates the loop actor it hands the loop machine the
 * actor's `ActorScope` (`getInitialSnapshot`, part of XState's public `ActorLogic` contract);
 * the machine passes its `emit` to `attach`, which is how events from invoked actors reach
 * `loop.on(...)` listeners exactly as the machine's own `emit` actions do, without a macrostep.
 */
export class LoopServices {
  readonly session: LoopSession;
  readonly model: ModelAdapter;
  readonly tools: readonly AnyToolDefinition[];
  readonly instructions: string | undefined;
  readonly mutators: readonly LoopMutator[];
  /** Asks the budget, runs the compactor's tiers and keeps the floor; absent without a compactor. */
  readonly compaction: CompactionController | undefined;
  readonly toolTimeoutMs: number | undefined;
  readonly maxParallelTools: number;
  /** The loop's tools by name, built and checked once when the loop is made. */
  readonly registry: ToolRegistry;
  /** What the model is told about the tools, computed once. */
  readonly specs: readonly ToolSpec[];
  /** Tokens of a request outside its items, for budget checks between usage reports. */
  readonly overhead: PromptOverhead;
  #emit: ((event: TelemetryEvent) => void) | undefined;
  #actor: AnyActorRef | undefined;

  constructor(options: LoopServicesOptions) {
    this.session = options.session;
    this.model = options.model;
    this.tools = options.tools;
    this.instructions = options.instructions;
    this.mutators = options.mutators;
    this.compaction =
      options.compactor === undefined ? undefined : new CompactionController(options.compactor);
    this.toolTimeoutMs = options.toolTimeoutMs;
    this.maxParallelTools = options.maxParallelTools;
    this.registry = createToolRegistry(options.tools);
    this.specs = this.registry.specs;
    this.overhead = new PromptOverhead(options.instructions, this.specs);
  }

  /**
   * Binds the services to the loop actor XState is creating. A second actor made from the same
   * services would share one session and one log cursor with the first, so it is refused.
   */
  attach(scope: {
    readonly self: AnyActorRef;
    readonly emit: (event: TelemetryEvent) => void;
  }): void {
    if (this.#actor !== undefined && this.#actor !== scope.self) {
      throw new Error(
        'loopkeeper: these loop services already serve another actor; call createAgentLoopLogic once per loop',
      );
    }
    this.#actor = scope.self;
    this.#emit = scope.emit;
  }

  /** Hands an event to the loop's listeners (`loop.on`), as the machine's `emit` actions do. */
  emit(event: TelemetryEvent): void {
    if (this.#emit !== undefined) this.#emit(event);
    else this.#actor?.send({ type: 'loop.telemetry', event });
  }

  /** Inspectors and snapshots serialize the creation input: name the services, nothing more. */
  toJSON(): string {
    return `[loop services of ${this.session.sessionId}]`;
  }
}

/** What the loop machine's creation input may carry for the runtime. */
interface WithServices {
  readonly services?: unknown;
}

/** The input an actor was created with: `Actor.options` is public, the input among them. */
export function creationInputOf(actor: AnyActorRef): unknown {
  return (actor as { readonly options?: { readonly input?: unknown } }).options?.input;
}

/** The services a loop actor was created with (see `LoopServices`). */
export function servicesOf(loop: AnyActorRef): LoopServices {
  const services = servicesIn(creationInputOf(loop));
  if (services === undefined) {
    throw new Error(
      'loopkeeper: an actor of the loop ran outside a loop made by createAgentLoop or createAgentLoopLogic',
    );
  }
  return services;
}

/** The services in a creation input, when it carries any. */
export function servicesIn(input: unknown): LoopServices | undefined {
  const services = (input as WithServices | undefined)?.services;
  return services instanceof LoopServices ? services : undefined;
}
