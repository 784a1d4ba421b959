import { type ObjectContext, TerminalError } from '@restatedev/restate-sdk';
import type { UserContent } from '../../machines/agent-loop.types.js';
import { StoreError } from '../errors/store-error.js';
import { describeBytes, jsonBytes, type LoopObjectLimits } from './limits.js';
import { readHead, type SessionHead } from './session-head.js';

/**
 * Checks a message against the session's size limits before a run starts, so a message that
 * cannot be stored is refused (a terminal 413 carrying a `StoreError`'s code and text) and never
 * reaches the journal of a run. Returns the head, read once for the whole `send`.
 */
export async function admitMessage({
  context,
  content,
  limits,
}: {
  readonly context: ObjectContext;
  readonly content: UserContent;
  readonly limits: Required<LoopObjectLimits>;
}): Promise<{ head: SessionHead; migrated: boolean }> {
  const read = await readHead(context);
  const bytes = jsonBytes(content);
  const { maxEntryBytes, maxSessionBytes } = limits;
  const sessionId = context.key;
  let refusal: StoreError | undefined;
  if (bytes > maxEntryBytes) {
    refusal = new StoreError(
      `Session ${sessionId}: a message of ${describeBytes(bytes)} is over the ${describeBytes(maxEntryBytes)} limit of one entry (maxEntryBytes)`,
      { code: 'value_too_large' },
    );
  } else if (read.head.logBytes + bytes > maxSessionBytes) {
    refusal = new StoreError(
      `Session ${sessionId} is full: its log holds ${describeBytes(read.head.logBytes)} of ${describeBytes(maxSessionBytes)} (maxSessionBytes); start a new session`,
      { code: 'session_full' },
    );
  }
  if (refusal !== undefined) {
    throw new TerminalError(`${refusal.code}: ${refusal.message}`, { errorCode: 413 });
  }
  return read;
}
