import type { ApprovalErrorCode } from './error-codes.js';
import { LoopkeeperError } from './loopkeeper-error.js';

const marker = Symbol.for('loopkeeper.error.approval');

/**
 * A decision the run cannot take: the call does not wait for approval (`approval_not_pending`),
 * it was decided already (`approval_already_decided`), or the decision is malformed
 * (`approval_invalid`); or a new message while a run waits, where the host must decide first
 * (`approval_pending`, the Restate object's `send`). Nothing is recorded for a refused one.
 *
 * @example
 * ```ts
 * import { type AgentLoopActor, ApprovalError, decide } from 'loopkeeper';
 *
 * async function approveOnce(loop: AgentLoopActor, callId: string) {
 *   try {
 *     return await decide(loop, { callId, approved: true });
 *   } catch (error) {
 *     if (ApprovalError.isInstance(error) && error.code === 'approval_already_decided') return null;
 *     throw error;
 *   }
 * }
 * ```
 */
export class ApprovalError extends LoopkeeperError {
  readonly [marker] = true;
  declare readonly code: ApprovalErrorCode;

  constructor(message: string, options: { code: ApprovalErrorCode; cause?: unknown }) {
    super(message, { code: options.code, cause: options.cause });
    this.name = 'ApprovalError';
  }

  static override isInstance(value: unknown): value is ApprovalError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}
