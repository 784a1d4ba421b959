import { agentLoopMachine } from 'loopkeeper';

type StateNode = typeof agentLoopMachine.root;

/**
 * States whose actor leaves no trace in the log, so a replay may pass through them unseen: a
 * budget check, a mutator that changed nothing, a tool gate that asked for no approval.
 */
const unlogged = new Set(['running.checkingBudget', 'running.mutating', 'running.gatingTools']);

function pathOf(node: StateNode): string {
  return node.path.join('.');
}

function nodesOf(node: StateNode): StateNode[] {
  return [node, ...Object.values(node.states).flatMap(nodesOf)];
}

const nodes = new Map(nodesOf(agentLoopMachine.root).map((node) => [pathOf(node), node]));

/**
 * States a replay may pass unseen: the unlogged ones, and every state with an eventless
 * (`always`) transition, which the actor may leave in the same macrostep it entered it (a
 * snapshot never shows it then).
 */
const passable = new Set([
  ...unlogged,
  ...[...nodes].filter(([, node]) => (node.always ?? []).length > 0).map(([path]) => path),
]);

/** The leaf states entering `node` lands in: itself, or its initial child's, all the way down. */
function entered(node: StateNode): string[] {
  if (Object.keys(node.states).length === 0) return [pathOf(node)];
  return (node.initial.target ?? []).flatMap(entered);
}

/** Leaf states one transition of the real machine leads to from `path`, whatever the guards say. */
function successors(path: string): Set<string> {
  const next = new Set<string>();
  for (let node = nodes.get(path); node !== undefined; node = node.parent) {
    const transitions = [...Object.values(node.on).flat(), ...(node.always ?? []), ...node.after];
    for (const transition of transitions) {
      for (const target of transition.target ?? []) {
        for (const leaf of entered(target)) next.add(leaf);
      }
    }
  }
  return next;
}

function reaches(from: string, to: string): boolean {
  const seen = new Set<string>();
  let frontier = [from];
  while (frontier.length > 0) {
    const following: string[] = [];
    for (const state of frontier) {
      for (const next of successors(state)) {
        if (next === to) return true;
        if (!passable.has(next) || seen.has(next)) continue;
        seen.add(next);
        following.push(next);
      }
    }
    frontier = following;
  }
  return false;
}

/**
 * The steps of a replay whose state the real machine cannot reach from the step before (through
 * states the log does not show), as `from -> to`; empty when the replay follows the machine.
 */
export function stepsOffTheMachine(steps: readonly { readonly state: string }[]): string[] {
  const problems: string[] = [];
  let previous = 'idle';
  for (const { state } of steps) {
    if (!nodes.has(state)) problems.push(`${state} is not a state of the machine`);
    else if (!reaches(previous, state)) problems.push(`${previous} -> ${state}`);
    previous = state;
  }
  return problems;
}
