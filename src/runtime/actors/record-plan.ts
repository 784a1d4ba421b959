import type { RecordPlanInput } from '../../../machines/agent-loop.types.js';
import { checkPlanUpdate, createPlanItem } from '../../compaction/plan/plan.js';
import { StoreError } from '../../errors/store-error.js';
import { loopActor } from './loop-actor-context.js';
import { withTypedFailures } from './typed-failure.js';

/**
 * Logs a plan the host pinned (`plan.update`) as a `loopkeeper:plan` context item between
 * runs; a plan that is not a list of {step, status} is refused before anything is written.
 */
export const recordPlanActor = loopActor<void, RecordPlanInput>(({ session }, { input }) => {
  const update = checkPlanUpdate(input.update);
  return withTypedFailures(
    async () => {
      await session.open();
      await session.closeUnclosedRun();
      await session.appendBetweenRuns([
        { type: 'items-appended', items: [createPlanItem(update)] },
      ]);
    },
    (description, cause) => new StoreError(`Logging the plan failed: ${description}`, { cause }),
  );
});
