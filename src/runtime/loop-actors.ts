import type { AgentLoopActorImplementations } from '../../machines/agent-loop.types.js';
import { toolSpecs } from '../tools/tool-registry.js';
import { beginRunActor } from './actors/begin-run.js';
import { callModelActor } from './actors/call-model.js';
import { checkBudgetActor } from './actors/check-budget.js';
import { compactActor } from './actors/compact.js';
import { emergencyPruneActor } from './actors/emergency-prune.js';
import { abortRunActor, finishRunActor } from './actors/finish-run.js';
import type { LoopActorContext } from './actors/loop-actor-context.js';
import { runMutatorActor } from './actors/run-mutator.js';
import { runToolsActor } from './actors/run-tools.js';
import { PromptOverhead } from './prompt-overhead.js';

export type LoopActorsOptions = Omit<LoopActorContext, 'specs' | 'overhead'>;

/**
 * The implementations of the machine's named actors for one session, each in its own module
 * under ./actors. They share the session (log, projection, token total) and never the machine.
 */
export function createLoopActors(options: LoopActorsOptions): AgentLoopActorImplementations {
  const specs = toolSpecs(options.tools);
  const context: LoopActorContext = {
    ...options,
    specs,
    overhead: new PromptOverhead(options.instructions, specs),
  };
  return {
    beginRun: beginRunActor(context),
    callModel: callModelActor(context),
    runTools: runToolsActor(context),
    runMutator: runMutatorActor(context),
    checkBudget: checkBudgetActor(context),
    compact: compactActor(context),
    emergencyPrune: emergencyPruneActor(context),
    finishRun: finishRunActor(context),
    abortRun: abortRunActor(context),
  };
}
