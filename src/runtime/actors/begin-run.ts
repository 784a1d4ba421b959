import type { BeginRunInput } from '../../../machines/agent-loop.types.js';
import { ProtocolError } from '../../errors/protocol-error.js';
import { StoreError } from '../../errors/store-error.js';
import { checkItem } from '../../transcript/check-item.js';
import { createItemId } from '../../transcript/ids.js';
import type { UserItem } from '../../transcript/types.js';
import { loopActor } from './loop-actor-context.js';
import { withTypedFailures } from './typed-failure.js';

/** Logs `run-started` and the user item, refusing invalid input before anything is written. */
export const beginRunActor = loopActor<void, BeginRunInput>(({ session }, { input, signal }) =>
  withTypedFailures(
    async () => {
      await session.open();
      await session.closeUnclosedRun();
      const candidate = { kind: 'user', id: createItemId('user'), content: input.content };
      // Refused at the door: nothing of a run with invalid input reaches the log.
      const problems = checkItem(candidate, session.items.length);
      if (problems.length > 0) {
        throw new ProtocolError({
          problems: problems,
          message: `Invalid user message: ${problems[0]?.message ?? ''}`,
        });
      }
      const user = candidate as UserItem;
      // An abort sent in the same tick as the message stopped this actor while it awaited the
      // log: beginning the run now would log a message in a run that nobody closes.
      if (signal.aborted) return;
      session.beginRun(input.runId);
      await session.appendForRun(input.runId, [
        { type: 'run-started', runId: input.runId },
        {
          type: 'items-appended',
          runId: input.runId,
          items: [user],
        },
      ]);
    },
    (description, cause) => new StoreError(`Starting the run failed: ${description}`, { cause }),
  ),
);
