import { agentLoopMachine } from '../../machines/agent-loop.machine.js';
import type { AgentLoopActorImplementations } from '../../machines/agent-loop.types.js';
import { beginRunActor } from './actors/begin-run.js';
import { callModelActor } from './actors/call-model.js';
import { checkBudgetActor } from './actors/check-budget.js';
import { compactActor } from './actors/compact.js';
import { emergencyPruneActor } from './actors/emergency-prune.js';
import { abortRunActor, finishRunActor } from './actors/finish-run.js';
import { gateToolsActor } from './actors/gate-tools.js';
import { recordDecisionsActor } from './actors/record-decisions.js';
import { resumeRunActor } from './actors/resume-run.js';
import { runMutatorActor } from './actors/run-mutator.js';
import { runToolsActor } from './actors/run-tools.js';
import { creationInputOf, servicesIn } from './loop-services.js';

/** The loop machine with its actors provided, as every loop's logic is. */
export type LoopMachine = ReturnType<typeof agentLoopMachine.provide>;

/**
 * The implementations of the machine's named actors, each in its own module under ./actors.
 * One set serves every loop: an invocation reads its session (log, projection, token total),
 * model and tools from the services of the loop that invoked it (`servicesOf(input.loop)`).
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
};

let sharedMachine: LoopMachine | undefined;

/**
 * The one logic every loop runs: the machine with the shared actors, built on first use and then
 * kept (`provide()` builds a whole state-node tree, about 43 KB, which a loop of its own would
 * pay for again). It differs from the provided machine in one method: when XState creates an
 * actor from it, the services in the actor's input are given the actor's scope
 * (`LoopServices.attach`), so they can emit to its listeners; the same when an actor is
 * restored from a persisted snapshot. `provide()` keeps that.
 */
export function loopMachine(): LoopMachine {
  sharedMachine ??= attachingServices(agentLoopMachine.provide({ actors: loopActors }));
  return sharedMachine;
}

function attachingServices(machine: LoopMachine): LoopMachine {
  return Object.create(machine, {
    getInitialSnapshot: {
      value: (...[scope, input]: Parameters<LoopMachine['getInitialSnapshot']>) => {
        servicesIn(input)?.attach(scope);
        return machine.getInitialSnapshot(scope, input);
      },
    },
    restoreSnapshot: {
      // A loop restored from a persisted snapshot gets no input here; the actor has it.
      value: (...[snapshot, scope]: Parameters<LoopMachine['restoreSnapshot']>) => {
        servicesIn(creationInputOf(scope.self))?.attach(scope);
        return machine.restoreSnapshot(snapshot, scope);
      },
    },
    provide: {
      value: (implementations: Parameters<LoopMachine['provide']>[0]) =>
        attachingServices(machine.provide(implementations)),
    },
  }) as LoopMachine;
}
