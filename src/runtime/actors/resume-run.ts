import type { ActorInvocation, ResumeRunOutput } from '../../../machines/agent-loop.types.js';
import { StoreError } from '../../errors/store-error.js';
import { loopActor } from './loop-actor-context.js';
import { withTypedFailures } from './typed-failure.js';

/**
 * Takes up a run the log shows unfinished and says where it goes on, from the log alone: open
 * tool calls are decided and run (completed results are kept), a final answer completes the run,
 * and anything else sends the run's request again.
 */
export const resumeRunActor = loopActor<ResumeRunOutput, ActorInvocation>(
  ({ session }, { input }) =>
    withTypedFailures(
      async () => {
        await session.open();
        if (!session.resumeRun(input.runId)) {
          throw new StoreError(
            `Run ${input.runId} cannot be resumed: the log of session ${input.sessionId} shows no such unfinished run`,
            { code: 'invalid_event' },
          );
        }
        if (session.pendingToolCalls.length > 0) return { next: 'tools' };
        const last = session.items.at(-1);
        if (last?.kind === 'toolResult') return { next: 'toolResults' };
        if (last?.kind === 'assistant') return { next: 'answer' };
        return { next: 'inference' };
      },
      (description, cause) => new StoreError(`Resuming the run failed: ${description}`, { cause }),
    ),
);
