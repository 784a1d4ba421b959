import type {
  AgentLoopActorImplementations,
  AgentLoopActorName,
  AgentLoopActorTypes,
} from 'loopkeeper/machines';
import { fromPromise } from 'xstate';

/** An invoked actor waiting for the test to say how it ends. */
export interface PendingCall {
  readonly source: string;
  readonly input: unknown;
  readonly resolve: (output: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Fake actors for every name the machine invokes. Each invocation parks a deferred promise that
 * the test resolves or rejects; an invocation the machine stops (abort, re-entry) is forgotten,
 * so only the actor that is really running can be completed.
 */
export function createControllableActors() {
  const pending = new Map<string, PendingCall>();

  function controllable<Name extends AgentLoopActorName>(source: Name) {
    type Output = AgentLoopActorTypes[Name]['output'];
    return fromPromise<Output, AgentLoopActorTypes[Name]['input']>(
      ({ input, signal }) =>
        new Promise<Output>((resolve, reject) => {
          const call: PendingCall = {
            source,
            input,
            resolve: (output) => resolve(output as Output),
            reject,
          };
          pending.set(source, call);
          signal.addEventListener('abort', () => {
            if (pending.get(source) === call) pending.delete(source);
          });
        }),
    );
  }

  // Typed from the machine's actor table: a renamed or retyped actor fails to compile here.
  const actors: AgentLoopActorImplementations = {
    beginRun: controllable('beginRun'),
    resumeRun: controllable('resumeRun'),
    callModel: controllable('callModel'),
    gateTools: controllable('gateTools'),
    recordDecisions: controllable('recordDecisions'),
    runTools: controllable('runTools'),
    runMutator: controllable('runMutator'),
    checkBudget: controllable('checkBudget'),
    compact: controllable('compact'),
    emergencyPrune: controllable('emergencyPrune'),
    finishRun: controllable('finishRun'),
    abortRun: controllable('abortRun'),
    compactNow: controllable('compactNow'),
    recordPlan: controllable('recordPlan'),
  };

  return {
    actors,
    /** The running invocation of `source`; settling it removes it. */
    take(source: string): PendingCall {
      const call = pending.get(source);
      if (call === undefined) throw new Error(`actor "${source}" is not running`);
      pending.delete(source);
      return call;
    },
    running(): string[] {
      return [...pending.keys()];
    },
  };
}
