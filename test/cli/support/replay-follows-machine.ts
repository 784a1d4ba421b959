import { isDeepStrictEqual } from 'node:util';
import { agentLoopMachine, type SessionEvent } from 'loopkeeper';
import { type AnyEventObject, transition } from 'xstate';
import { type ReplayStep, replaySteps } from '../../../src/cli/inspect/replay-steps.js';

/** A state value as a path: `{running: 'inferring'}` is `running.inferring`. */
function pathOf(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  return Object.entries(value)
    .map(([parent, child]) => `${parent}.${pathOf(child)}`)
    .join(',');
}

/**
 * Replays a log and checks it against the bare `agentLoopMachine` (nothing provided; a pure
 * transition runs no actor): every step the replay took must be the one the machine takes from
 * the replay's snapshot before, on the same event, to the same state and context; and every
 * step the replay shows must be a state and context the machine went through, in order. Returns
 * what does not hold, empty when the replay follows the machine; and the steps, to check further.
 */
export function replayAgainstMachine(input: {
  readonly sessionId: string;
  readonly events: readonly SessionEvent[];
}): { readonly problems: string[]; readonly steps: ReplayStep[]; readonly taken: number } {
  const problems: string[] = [];
  const visited: { readonly state: string; readonly context: unknown }[] = [];
  const steps = replaySteps({
    ...input,
    onTransition: ({ from, event, to }) => {
      const step = `${pathOf(from.value)} --${event.type}--> ${pathOf(to.value)}`;
      try {
        const before = agentLoopMachine.resolveState({ value: from.value, context: from.context });
        const [after] = transition(agentLoopMachine, before, event as AnyEventObject as never);
        if (!isDeepStrictEqual([after.value, after.context], [to.value, to.context])) {
          problems.push(`${step}: the machine goes to ${pathOf(after.value)}`);
        }
      } catch (error) {
        problems.push(`${step}: ${String(error)}`);
      }
      visited.push({ state: pathOf(to.value), context: to.context });
    },
  });
  let index = 0;
  for (const step of steps) {
    const found = visited.findIndex(
      (one, at) =>
        at >= index &&
        one.state === step.state &&
        Object.entries(step.context).every(([key, value]) =>
          isDeepStrictEqual((one.context as Record<string, unknown>)[key], value),
        ),
    );
    if (found < 0) problems.push(`${step.state} is not a state the machine went to`);
    else index = found + 1;
  }
  return { problems, steps, taken: visited.length };
}
