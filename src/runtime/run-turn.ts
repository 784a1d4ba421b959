import type { UserContent } from '../../machines/agent-loop.types.js';
import type { AgentLoopActor } from './create-agent-loop.js';
import type { RunFinished } from './telemetry-events.js';

/**
 * Sends one user message and resolves with the `RunFinished` event of the run it started.
 * Convenience for hosts and tests; the loop itself is driven by plain `send` calls.
 */
export function runTurn(loop: AgentLoopActor, content: UserContent): Promise<RunFinished> {
  return new Promise((resolve) => {
    const subscription = loop.on('RunFinished', (event) => {
      subscription.unsubscribe();
      resolve(event);
    });
    loop.send({ type: 'user.message', content });
  });
}
