import { agentLoopMachine } from '../../machines/agent-loop.machine.js';
import type { AgentLoopActorImplementations } from '../../machines/agent-loop.types.js';
import { createToolRegistry } from '../tools/tool-registry.js';
import { beginRunActor } from './actors/begin-run.js';
import { callModelActor } from './actors/call-model.js';
import { checkBudgetActor } from './actors/check-budget.js';
import { compactActor } from './actors/compact.js';
import { compactNowActor } from './actors/compact-now.js';
import { emergencyPruneActor } from './actors/emergency-prune.js';
import { abortRunActor, finishRunActor } from './actors/finish-run.js';
import { gateToolsActor } from './actors/gate-tools.js';
import { LOOP_ACTOR_CONTEXT, type LoopActorContext } from './actors/loop-actor-context.js';
import { recordDecisionsActor } from './actors/record-decisions.js';
import { recordPlanActor } from './actors/record-plan.js';
import { resumeRunActor } from './actors/resume-run.js';
import { runMutatorActor } from './actors/run-mutator.js';
import { runToolsActor } from './actors/run-tools.js';
import { CompactionFloor } from './compaction-floor.js';
import { PromptOverhead } from './prompt-overhead.js';

export type LoopActorsOptions = Omit<LoopActorContext, 'registry' | 'specs' | 'overhead' | 'floor'>;

/** The loop machine with its actors provided, as every loop's logic is. */
export type LoopMachine = ReturnType<typeof agentLoopMachine.provide>;

/**
 * The implementations of the machine's named actors, each in its own module under ./actors.
 * One set serves every loop: an invocation reads its session (log, projection, token total),
 * model and tools from the loop that invoked it, never from the machine.
 */
export const loopActors: AgentLoopActorImplementations = {
  beginRun: beginRunActor,
  resumeRun: resumeRunActor,
  callModel: callModelActor,
  gateTools: gateToolsActor,
  recordDecisions: recordDecisionsActor,
  runTools: runToolsActor,
  runMutator: runMutatorActor,
  checkBudget: checkBudgetActor,
  compact: compactActor,
  emergencyPrune: emergencyPruneActor,
  finishRun: finishRunActor,
  abortRun: abortRunActor,
  compactNow: compactNowActor,
  recordPlan: recordPlanActor,
};

let sharedMachine: LoopMachine | undefined;

/**
 * The machine with the shared actors, built on first use and then kept: `provide()` builds a
 * whole state-node tree (tens of KB), which a loop of its own would pay for again.
 */
function loopMachine(): LoopMachine {
  sharedMachine ??= agentLoopMachine.provide({ actors: loopActors });
  return sharedMachine;
}

/**
 * What the actors of one loop share: its options, plus the tool specs and overhead, computed
 * once, and the loop's compaction floor.
 */
export function createLoopActorContext(options: LoopActorsOptions): LoopActorContext {
  const registry = createToolRegistry(options.tools);
  const { specs } = registry;
  return {
    ...options,
    registry,
    specs,
    overhead: new PromptOverhead(options.instructions, specs),
    floor: new CompactionFloor(),
  };
}

/**
 * One loop's logic: the shared machine, seen through an object that adds only a pointer to the
 * loop's context (`LOOP_ACTOR_CONTEXT`), which the invoked actors read through their parent. It
 * lives as long as the logic (and the actors made from it) does, so nothing needs releasing.
 * `provide()` on it keeps the binding.
 */
export function bindLoopContext(
  context: LoopActorContext,
  machine: LoopMachine = loopMachine(),
): LoopMachine {
  return Object.create(machine, {
    [LOOP_ACTOR_CONTEXT]: { value: context },
    provide: {
      value: (implementations: Parameters<LoopMachine['provide']>[0]) =>
        bindLoopContext(context, machine.provide(implementations)),
    },
  }) as LoopMachine;
}
