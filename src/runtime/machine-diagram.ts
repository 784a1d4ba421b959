import type { AnyStateMachine } from 'xstate';

interface TransitionLike {
  readonly target?: readonly { readonly key: string }[];
  readonly guard?: unknown;
}

interface StateNodeLike {
  readonly key: string;
  readonly type: string;
  readonly states: Readonly<Record<string, StateNodeLike>>;
  readonly transitions: ReadonlyMap<string, readonly TransitionLike[]>;
  readonly always?: readonly TransitionLike[];
  readonly invoke: readonly { readonly id: string; readonly src: unknown }[];
}

function guardName(guard: unknown): string | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && guard !== null && 'type' in guard) return String(guard.type);
  return 'condition';
}

function eventLabel(event: string, node: StateNodeLike): string {
  for (const invoke of node.invoke) {
    if (event === `xstate.done.actor.${invoke.id}`) return `${String(invoke.src)} done`;
    if (event === `xstate.error.actor.${invoke.id}`) return `${String(invoke.src)} error`;
  }
  return event;
}

function renderNode(key: string, node: StateNodeLike, indent: string, lines: string[]): void {
  const children = Object.entries(node.states);
  if (children.length > 0) {
    lines.push(`${indent}state ${key} {`);
    const initial = (node as { initial?: { target?: readonly { key: string }[] } }).initial
      ?.target?.[0]?.key;
    if (initial !== undefined) lines.push(`${indent}  [*] --> ${initial}`);
    for (const [childKey, child] of children) renderNode(childKey, child, `${indent}  `, lines);
    lines.push(`${indent}}`);
  }
  const invoked = node.invoke.map((invoke) => String(invoke.src));
  if (invoked.length > 0) lines.push(`${indent}${key}: ${key} (invokes ${invoked.join(', ')})`);
  const edges: [string, TransitionLike][] = [];
  for (const [event, transitions] of node.transitions) {
    // A compound state's own edges are drawn once, on it; its children inherit them.
    for (const transition of transitions) edges.push([eventLabel(event, node), transition]);
  }
  for (const transition of node.always ?? []) edges.push(['always', transition]);
  for (const [label, transition] of edges) {
    for (const target of transition.target ?? []) {
      const guard = guardName(transition.guard);
      lines.push(
        `${indent}${key} --> ${target.key}: ${label}${guard === undefined ? '' : ` [${guard}]`}`,
      );
    }
  }
  if (node.type === 'final') lines.push(`${indent}${key} --> [*]`);
}

/**
 * A Mermaid state diagram of a machine, read from its definition (states, compound states,
 * events, guards and invoked actors), so documentation can be regenerated instead of drawn by
 * hand.
 *
 * @example
 * ```ts
 * import { machineToMermaid } from 'loopkeeper/runtime';
 * import { agentLoopMachine } from 'loopkeeper';
 *
 * // The state diagram of docs/architecture.md, as Mermaid text.
 * console.log(machineToMermaid(agentLoopMachine));
 * ```
 */
export function machineToMermaid(machine: AnyStateMachine): string {
  const root = machine.root as unknown as StateNodeLike;
  const lines = ['stateDiagram-v2', `  [*] --> ${String(machine.config.initial)}`];
  for (const [key, node] of Object.entries(root.states)) renderNode(key, node, '  ', lines);
  return lines.join('\n');
}
