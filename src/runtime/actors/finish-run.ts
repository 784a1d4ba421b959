import type { FinishRunInput } from '../../../machines/agent-loop.types.js';
import { loopActor } from './loop-actor-context.js';

/** Ends a run: open tool calls get synthetic results, then `run-finished`. */
export const finishRunActor = loopActor<void, FinishRunInput>(async ({ session }, { input }) => {
  const why = input.error === null ? input.outcome : `${input.outcome}: ${input.error.message}`;
  await session.finishRun(
    input.runId,
    {
      type: 'run-finished',
      runId: input.runId,
      outcome: input.outcome,
      steps: input.steps,
      ...(input.error === null ? {} : { error: input.error }),
    },
    `The run ended (${why}) before this tool call was answered.`,
  );
});

/** Ends an aborted run: open tool calls get synthetic "aborted" results, then `run-finished`. */
export const abortRunActor = loopActor<void, FinishRunInput>(async ({ session }, { input }) => {
  await session.finishRun(
    input.runId,
    {
      type: 'run-finished',
      runId: input.runId,
      outcome: 'aborted',
      steps: input.steps,
      ...(input.error === null ? {} : { error: input.error }),
    },
    'The run was aborted before this tool call finished.',
  );
});
