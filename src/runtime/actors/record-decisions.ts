import type {
  RecordDecisionsInput,
  RecordDecisionsOutput,
} from '../../../machines/agent-loop.types.js';
import { StoreError } from '../../errors/store-error.js';
import type { NewSessionEvent } from '../../log/events.js';
import { loopActor } from './loop-actor-context.js';
import { withTypedFailures } from './typed-failure.js';

/**
 * Writes the queued decisions to the log as `approval-decided` events, each with the arguments
 * hash of the call as it was requested: what was approved is what will run.
 */
export const recordDecisionsActor = loopActor<RecordDecisionsOutput, RecordDecisionsInput>(
  ({ session }, { input }) =>
    withTypedFailures(
      async () => {
        const events: NewSessionEvent[] = [];
        const recorded: RecordDecisionsOutput['recorded'][number][] = [];
        for (const decision of input.decisions) {
          const request = session.progress.request(decision.callId);
          // The machine only queues calls it waits for; a decision for anything else is dropped.
          if (request === undefined || session.progress.decision(decision.callId) !== undefined) {
            recorded.push({ ...decision, toolName: request?.toolName ?? '' });
            continue;
          }
          events.push({
            type: 'approval-decided',
            runId: input.runId,
            callId: decision.callId,
            approved: decision.approved,
            ...(decision.reason === undefined ? {} : { reason: decision.reason }),
            argumentsHash: request.argumentsHash,
          });
          recorded.push({ ...decision, toolName: request.toolName });
        }
        if (events.length > 0) await session.appendForRun(input.runId, events);
        return { recorded };
      },
      (description, cause) =>
        new StoreError(`Recording approval decisions failed: ${description}`, { cause }),
    ),
);
