import type { NewSessionEvent } from '../log/events.js';
import { createItemId } from '../transcript/ids.js';
import type { ToolCall, ToolResultItem } from '../transcript/types.js';

/**
 * The events that close a run: a synthetic error result for each tool call still open (saying
 * why, so the transcript stays valid however the run ended), then its `run-finished`.
 */
export function closingEvents({
  runId,
  openCalls,
  openCallMessage,
  finished,
}: {
  readonly runId: string;
  readonly openCalls: readonly ToolCall[];
  readonly openCallMessage: string;
  readonly finished: NewSessionEvent;
}): NewSessionEvent[] {
  const answers = openCalls.map(
    (call): ToolResultItem => ({
      kind: 'toolResult',
      id: createItemId('result'),
      callId: call.id,
      toolName: call.name,
      content: `[loopkeeper] ${openCallMessage}`,
      isError: true,
    }),
  );
  return answers.length > 0
    ? [{ type: 'items-appended', runId, items: answers }, finished]
    : [finished];
}

/** `run-finished` for a run a crash left open, written when the session is reopened. */
export function interruptedRunFinished(runId: string): NewSessionEvent {
  return {
    type: 'run-finished',
    runId,
    outcome: 'failed',
    steps: 0,
    error: {
      name: 'StoreError',
      code: 'interrupted',
      message: 'The run was interrupted and closed when the session was reopened',
    },
  };
}
