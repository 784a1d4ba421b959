import { createHash } from 'node:crypto';
import { type ObjectContext, TerminalError } from '@restatedev/restate-sdk';
import type { UserContent } from '../../machines/agent-loop.types.js';
import { ConcurrencyError } from '../errors/concurrency-error.js';
import { stateKeys } from './state-keys.js';

/** `sha256:<hex>` of a message's content as JSON: what a run's id stands for. */
export function runInputDigest(content: UserContent): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(content), 'utf8').digest('hex')}`;
}

/**
 * Refuses a `send` that names a recorded run with other content: the host reused a run id for a
 * new message, and returning the earlier run's result would drop that message silently. A
 * terminal 409 carrying `ConcurrencyError` `run_id_reused`, as an append at a taken seq with
 * other events is refused. Runs recorded before digests were kept are not checked.
 */
export async function assertSameRunInput({
  context,
  runId,
  content,
}: {
  readonly context: ObjectContext;
  readonly runId: string;
  readonly content: UserContent;
}): Promise<void> {
  const recorded = await context.get<string>(stateKeys.runInput(runId));
  if (recorded === null || recorded === runInputDigest(content)) return;
  const error = new ConcurrencyError(
    `Session ${context.key}: run ${runId} was sent with other content; send a new message under a new runId (or none)`,
    { code: 'run_id_reused' },
  );
  throw new TerminalError(`${error.code}: ${error.message}`, { errorCode: 409 });
}
