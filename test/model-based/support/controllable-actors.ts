import { fromPromise } from 'xstate';
import type {
  BeginRunInput,
  CallModelInput,
  CallModelOutput,
  CheckBudgetInput,
  CheckBudgetOutput,
  CompactInput,
  CompactOutput,
  EmergencyPruneOutput,
  FinishRunInput,
  RunMutatorInput,
  RunMutatorOutput,
  RunToolsInput,
  RunToolsOutput,
} from '../../../machines/agent-loop.machine.js';

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

  function controllable<TOutput, TInput>(source: string) {
    return fromPromise<TOutput, TInput>(
      ({ input, signal }) =>
        new Promise<TOutput>((resolve, reject) => {
          const call: PendingCall = {
            source,
            input,
            resolve: (output) => resolve(output as TOutput),
            reject,
          };
          pending.set(source, call);
          signal.addEventListener('abort', () => {
            if (pending.get(source) === call) pending.delete(source);
          });
        }),
    );
  }

  const actors = {
    beginRun: controllable<void, BeginRunInput>('beginRun'),
    callModel: controllable<CallModelOutput, CallModelInput>('callModel'),
    runTools: controllable<RunToolsOutput, RunToolsInput>('runTools'),
    runMutator: controllable<RunMutatorOutput, RunMutatorInput>('runMutator'),
    checkBudget: controllable<CheckBudgetOutput, CheckBudgetInput>('checkBudget'),
    compact: controllable<CompactOutput, CompactInput>('compact'),
    emergencyPrune: controllable<EmergencyPruneOutput, CompactInput>('emergencyPrune'),
    finishRun: controllable<void, FinishRunInput>('finishRun'),
    abortRun: controllable<void, FinishRunInput>('abortRun'),
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
