import { agentLoopMachine } from 'loopkeeper';
import type { AnyStateNode } from 'xstate';

/** A leaf state of the real machine, read off its definition. */
export interface MachineState {
  /** The state's own key, e.g. `inferring` (unique among the leaves). */
  readonly key: string;
  /** Its path from the root, e.g. `running.inferring`. */
  readonly path: string;
  /** The actors it invokes: `id` as in done events, `source` as given to `.provide({actors})`. */
  readonly invokes: readonly { readonly id: string; readonly source: string }[];
  /** A routing state: an unguarded eventless (`always`) transition leaves it at once, so it is never rested in. */
  readonly transient: boolean;
  /** A final state: the actor is done (`closed`). */
  readonly final: boolean;
}

function leavesOf(node: AnyStateNode): AnyStateNode[] {
  const children = Object.values(node.states);
  return children.length === 0 ? [node] : children.flatMap(leavesOf);
}

function describeState(node: AnyStateNode): MachineState {
  return {
    key: node.key,
    path: node.path.join('.'),
    invokes: node.invoke.map((definition) => {
      if (typeof definition.src !== 'string') {
        throw new Error(`state "${node.key}" invokes an inline actor; the tests need a named one`);
      }
      return { id: definition.id, source: definition.src };
    }),
    transient: (node.always ?? []).some((transition) => transition.guard === undefined),
    final: node.type === 'final',
  };
}

/** Every leaf state of `agentLoopMachine`, in definition order. */
export const machineStates: readonly MachineState[] = leavesOf(agentLoopMachine.root).map(
  describeState,
);

const keys = machineStates.map((state) => state.key);
if (new Set(keys).size !== keys.length) {
  throw new Error(`two leaf states of the machine share a key: ${keys.join(', ')}`);
}

/** The leaf states a run rests in: all but `idle`, the final state and the transient routing states. */
export const busyStates: readonly string[] = machineStates
  .filter((state) => state.key !== 'idle' && !state.final && !state.transient)
  .map((state) => state.key);

/** The leaf states that invoke an actor. */
export const invokingStates: readonly string[] = machineStates
  .filter((state) => state.invokes.length > 0)
  .map((state) => state.key);
