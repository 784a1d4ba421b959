import type { ProtocolProblem } from '../transcript/types.js';
import type { ProtocolErrorCode } from './error-codes.js';
import { hasMarker, LoopkeeperError } from './loopkeeper-error.js';

const marker = Symbol.for('loopkeeper.error.protocol');

/** What makes a transcript invalid; the message defaults to a list of the problems. */
export interface ProtocolErrorOptions {
  readonly problems: readonly ProtocolProblem[];
  readonly message?: string;
  /** The session log event that broke the protocol, when the transcript came from a log. */
  readonly seq?: number;
}

/**
 * A transcript breaks the tool-call protocol; `problems` lists every break found.
 *
 * @example
 * ```ts
 * import { ProtocolError, toChatMessages } from 'loopkeeper';
 *
 * try {
 *   toChatMessages([
 *     {
 *       kind: 'toolResult',
 *       id: 'r1',
 *       callId: 'missing',
 *       toolName: 'ls',
 *       content: '',
 *       isError: false,
 *     },
 *   ]);
 * } catch (error) {
 *   if (ProtocolError.isInstance(error))
 *     for (const problem of error.problems) console.log(problem.kind);
 * }
 * ```
 */
export class ProtocolError extends LoopkeeperError {
  readonly [marker] = true;
  declare readonly code: ProtocolErrorCode;
  readonly problems: readonly ProtocolProblem[];
  /** The session log event that broke the protocol, when the transcript came from a log. */
  readonly seq: number | undefined;

  constructor({ problems, message, seq }: ProtocolErrorOptions) {
    super(
      message ??
        `Transcript is not protocol-valid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems
          .map((problem) => `  - ${formatProblem(problem)}`)
          .join('\n')}`,
      { code: 'protocol_invalid' },
    );
    this.name = 'ProtocolError';
    this.problems = problems;
    this.seq = seq;
  }

  static override isInstance(value: unknown): value is ProtocolError {
    return hasMarker(value, marker);
  }
}

function formatProblem(problem: ProtocolProblem): string {
  const where =
    problem.id === undefined ? `item ${problem.index}` : `item ${problem.index} (${problem.id})`;
  return `${where}: ${problem.kind}: ${problem.message}`;
}
