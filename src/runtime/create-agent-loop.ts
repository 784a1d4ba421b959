import { randomUUID } from 'node:crypto';
import { Actor, type ActorOptions, type InspectionEvent, type Observer } from 'xstate';
import {
  DEFAULT_MAX_CONSECUTIVE_COMPACTIONS,
  DEFAULT_MAX_STEPS_PER_RUN,
} from '../../machines/agent-loop.helpers.js';
import type { AgentLoopInput } from '../../machines/agent-loop.types.js';
import type { Compactor } from '../compaction/compactor.js';
import type { LoopMutator } from '../compaction/types.js';
import { ConfigError } from '../errors/config-error.js';
import { MemorySessionStore } from '../log/memory-store.js';
import { assertValidSessionId } from '../log/session-id.js';
import type { SessionStore } from '../log/store.js';
import type { ModelAdapter } from '../model/types.js';
import type { TokenCounter, TokenEncoding } from '../tokens/types.js';
import { DEFAULT_MAX_PARALLEL_TOOLS } from '../tools/execute-tool-calls.js';
import type { AnyToolDefinition } from '../tools/types.js';
import { isValidTimeout } from '../tools/validate-tool-definition.js';
import { createItemId } from '../transcript/ids.js';
import { type LoopMachine, loopMachine } from './loop-actors.js';
import { LoopServices } from './loop-services.js';
import { type InterruptedRunPolicy, LoopSession } from './loop-session.js';

export interface AgentLoopOptions {
  readonly model: ModelAdapter;
  readonly tools?: readonly AnyToolDefinition[];
  /** The host's system prompt: rendered first on every request, never summarized or pruned. */
  readonly instructions?: string;
  readonly compactor?: Compactor;
  /** Host mutators, run in order at the points each declares. */
  readonly mutators?: readonly LoopMutator[];
  readonly store?: SessionStore;
  /** An existing session id resumes that session from its log. */
  readonly sessionId?: string;
  readonly maxConsecutiveCompactions?: number;
  readonly maxStepsPerRun?: number;
  readonly toolTimeoutMs?: number;
  /**
   * The most tool calls of one answer that run at once; the others wait for a free slot.
   * Default 16 (`DEFAULT_MAX_PARALLEL_TOOLS`).
   */
  readonly maxParallelTools?: number;
  /** A ready token counter; otherwise one is loaded lazily on the first run. */
  readonly tokens?: TokenCounter;
  readonly encoding?: TokenEncoding;
  /** An XState inspector, e.g. from `@statelyai/inspect`. */
  readonly inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
}

/** `openAgentLoop`'s options: a loop's, and what to do with a run a crash left unfinished. */
export interface OpenAgentLoopOptions extends AgentLoopOptions {
  /**
   * `resume` (default): the loop continues the session's unfinished run in place when it
   * starts: the request in flight is sent again, finished tool results are kept, a started call
   * with no result runs again only if its tool is `idempotent`, and a run waiting for approval
   * waits again. `fail`: the run is closed as failed (code `interrupted`) when the log is read.
   */
  readonly interrupted?: InterruptedRunPolicy;
}

/**
 * An agent loop: the XState actor of the loop machine (start it, send it events, listen with
 * `on`), with the session behind it as a field of its own rather than one patched on.
 */
export class AgentLoopActor extends Actor<LoopMachine> {
  /** The session behind the loop: its store, id and effective history. */
  readonly session: LoopSession;

  constructor(
    { logic, input, session }: AgentLoopLogic,
    /** An inspector, or the parent actor of a loop that runs as another actor's child. */
    options: Pick<ActorOptions<LoopMachine>, 'inspect' | 'parent'> = {},
  ) {
    super(logic, { ...options, input });
    this.session = session;
  }
}

/** The loop's machine with its actors bound, for spawning it inside a host machine. */
export interface AgentLoopLogic {
  /**
   * The loop machine with its actors provided, bound to this session: every loop shares one
   * machine definition and one set of actors, and reads its own session, model and tools.
   */
  readonly logic: LoopMachine;
  /** The input to spawn it with. */
  readonly input: AgentLoopInput;
  readonly session: LoopSession;
}

/**
 * Binds the loop machine to a model, tools, a compactor and a session store, without creating
 * an actor: spawn `logic` with `input` as a child of a host machine
 * (`spawnChild(logic, {id, input})`).
 *
 * @example
 * ```ts
 * import { createActor, setup, spawnChild } from 'xstate';
 * import { createAgentLoopLogic } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const agent = createAgentLoopLogic({ model: new ScriptedModel({ turns: [{ text: 'Hi!' }] }) });
 * const host = setup({ actors: { agentLoop: agent.logic } }).createMachine({
 *   entry: spawnChild('agentLoop', { id: 'agent', input: agent.input }),
 * });
 * createActor(host).start();
 * ```
 */
export function createAgentLoopLogic({
  model,
  tools = [],
  instructions,
  compactor,
  mutators = [],
  store = new MemorySessionStore(),
  sessionId = createItemId('session'),
  maxConsecutiveCompactions = DEFAULT_MAX_CONSECUTIVE_COMPACTIONS,
  maxStepsPerRun = DEFAULT_MAX_STEPS_PER_RUN,
  toolTimeoutMs,
  maxParallelTools = DEFAULT_MAX_PARALLEL_TOOLS,
  tokens,
  encoding = 'o200k_base',
  interrupted = 'fail',
}: Omit<OpenAgentLoopOptions, 'inspect'>): AgentLoopLogic {
  validateOptions({ model, maxConsecutiveCompactions, maxStepsPerRun, mutators, compactor });
  const loopMutators = withCompactorMutators(mutators, compactor);
  // The rule the tool calls apply, so a value they would refuse mid-run is refused here.
  if (toolTimeoutMs !== undefined && !isValidTimeout(toolTimeoutMs)) {
    throw new ConfigError(
      `createAgentLoop: toolTimeoutMs must be a whole number of milliseconds from 1 to 2147483647, got ${toolTimeoutMs}`,
      { code: 'config_invalid_timeout' },
    );
  }
  if (!(Number.isSafeInteger(maxParallelTools) && maxParallelTools >= 1)) {
    throw new ConfigError(
      `createAgentLoop: maxParallelTools must be a whole number of 1 or more, got ${maxParallelTools}`,
      { code: 'config' },
    );
  }
  // Every store names files or keys after the id: refuse a bad one now, not at the first run.
  assertValidSessionId(sessionId);
  const session = new LoopSession({
    store,
    sessionId,
    encoding,
    interrupted,
    // With no compactor and no mutators no decision depends on a count (see LoopSession).
    deferEncoding: compactor === undefined && loopMutators.length === 0,
    ...(tokens === undefined ? {} : { tokens }),
  });
  // Builds and checks the tool registry, so a bad tool list fails here.
  const services = new LoopServices({
    session,
    model,
    tools,
    instructions,
    mutators: loopMutators,
    compactor,
    toolTimeoutMs,
    maxParallelTools,
  });
  return {
    logic: loopMachine(),
    input: {
      services,
      sessionId,
      // Run ids of runs whose sender chose none stay unique across processes and restarts.
      instance: randomUUID().slice(0, 8),
      maxConsecutiveCompactions,
      maxStepsPerRun,
      mutators: loopMutators.map((mutator) => ({ name: mutator.name, points: mutator.points })),
      compactor: compactor?.name ?? null,
      approvals: tools.some(
        (tool) => tool.needsApproval !== undefined && tool.needsApproval !== false,
      ),
    },
    session,
  };
}

/**
 * Binds the loop machine to a model, tools, a compactor and a session store. The returned actor
 * is not started: call `start()`, subscribe with `on(type, listener)`, send
 * `{type: 'user.message', content}` and `{type: 'abort'}`. An existing `sessionId` resumes
 * that session from its log when the first run starts.
 *
 * @example
 * ```ts
 * import { createAgentLoop, openAIChatModel, runTurn } from 'loopkeeper';
 *
 * const loop = createAgentLoop({
 *   model: openAIChatModel({ apiKey: process.env['OPENAI_API_KEY'] ?? '', model: 'gpt-4o-mini' }),
 *   instructions: 'You are a concise assistant.',
 * });
 * loop.on('RunFinished', ({ outcome }) => console.log(`run ${outcome}`));
 * loop.start();
 * console.log((await runTurn(loop, 'What is XState?')).text);
 * ```
 */
export function createAgentLoop({ inspect, ...options }: AgentLoopOptions): AgentLoopActor {
  return new AgentLoopActor(
    createAgentLoopLogic(options),
    inspect === undefined ? {} : { inspect },
  );
}

/**
 * Like `createAgentLoop`, but reads the session log first, so the loop starts with the
 * session's facts (runs so far, effective history) in place and a broken log fails here,
 * before the first message. A run the log shows unfinished (its process stopped, or it waits
 * for approval) is continued in place once the loop starts (`interrupted: 'resume'`, the
 * default); `resumeRun(loop)` waits for it.
 *
 * @example
 * ```ts
 * import { FileSessionStore, openAgentLoop, runTurn } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * // Reads the log first: a broken log fails here, before the first message.
 * const loop = await openAgentLoop({
 *   model: new ScriptedModel({ turns: [{ text: 'Welcome back.' }] }),
 *   store: new FileSessionStore({ directory: './sessions' }),
 *   sessionId: 'support-42',
 * });
 * loop.start();
 * await runTurn(loop, 'Where were we?');
 * ```
 */
export async function openAgentLoop({
  inspect,
  interrupted = 'resume',
  ...options
}: OpenAgentLoopOptions): Promise<AgentLoopActor> {
  const agent = createAgentLoopLogic({ ...options, interrupted });
  await agent.session.open();
  const unfinished = agent.session.unfinishedRun;
  const input =
    unfinished === null
      ? agent.input
      : { ...agent.input, resume: { runId: unfinished.runId, steps: unfinished.steps } };
  return new AgentLoopActor({ ...agent, input }, inspect === undefined ? {} : { inspect });
}

/**
 * The host's mutators, then the compactor's cap on new tool outputs: the host's mutators see
 * each output whole (to redact it, say) before the cap clips what the model will read.
 */
function withCompactorMutators(
  mutators: readonly LoopMutator[],
  compactor: Compactor | undefined,
): readonly LoopMutator[] {
  const cap = compactor?.toolOutputLimit;
  if (cap === undefined) return mutators;
  if (mutators.some((mutator) => mutator.name === cap.name)) {
    throw new ConfigError(
      `createAgentLoop: the compactor caps tool outputs already (a mutator named "${cap.name}"); set the cap with createCompactor({toolOutputLimit: {maxTokens}}), or turn it off with toolOutputLimit: false, rather than passing a second one`,
    );
  }
  return [...mutators, cap];
}

function validateOptions(options: {
  model: unknown;
  maxConsecutiveCompactions: number;
  maxStepsPerRun: number;
  mutators: readonly LoopMutator[];
  compactor: Compactor | undefined;
}): void {
  const model = options.model as { generate?: unknown } | undefined;
  if (typeof model !== 'object' || model === null || typeof model.generate !== 'function') {
    throw new ConfigError(
      'createAgentLoop: `model` must be a ModelAdapter with a generate() method',
    );
  }
  if (
    !Number.isInteger(options.maxConsecutiveCompactions) ||
    options.maxConsecutiveCompactions < 0
  ) {
    throw new ConfigError(
      `createAgentLoop: maxConsecutiveCompactions must be an integer >= 0, got ${options.maxConsecutiveCompactions}`,
    );
  }
  if (!Number.isInteger(options.maxStepsPerRun) || options.maxStepsPerRun < 1) {
    throw new ConfigError(
      `createAgentLoop: maxStepsPerRun must be an integer >= 1, got ${options.maxStepsPerRun}`,
    );
  }
  const names = new Set<string>();
  for (const mutator of options.mutators) {
    if (typeof mutator?.mutate !== 'function' || typeof mutator.name !== 'string') {
      throw new ConfigError('createAgentLoop: every mutator needs a name and a mutate() function');
    }
    if (names.has(mutator.name))
      throw new ConfigError(`createAgentLoop: two mutators are named "${mutator.name}"`);
    names.add(mutator.name);
  }
}
