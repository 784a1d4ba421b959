import { isLoopkeeperErrorCode } from '../../errors/error-codes.js';
import { LoopkeeperError } from '../../errors/loopkeeper-error.js';
import type { TurnResult } from '../../runtime/run-turn.js';
import { CommandError } from '../command-error.js';

/**
 * Why a replayed turn did not complete, as an error that says what to change: a step limit
 * names the limit and the option that raises it, a context overflow the window to try.
 */
export function replayFailure({
  finished,
  turn,
  recording,
  window,
  maxSteps,
}: {
  finished: Pick<TurnResult, 'outcome' | 'error' | 'steps'>;
  turn: number;
  recording: string;
  window: number;
  maxSteps: number;
}): LoopkeeperError | CommandError {
  const where = `Replay turn ${turn} (${recording})`;
  if (finished.outcome === 'step_limit') {
    return new CommandError(
      `${where} was ended by the step limit after ${finished.steps} model requests (at most ${maxSteps} per run); the recording needs more: raise the limit with --max-steps, e.g. --max-steps ${maxSteps * 4}.`,
      { code: 'demo_step_limit' },
    );
  }
  // The loop never drops the latest user turn, so a window smaller than one recorded turn cannot work.
  const hint =
    finished.error?.name === 'ContextOverflowError'
      ? ` The window is too small for this recording; try --window ${Math.max(8192, window * 2)}.`
      : '';
  const code = finished.error?.code;
  const message = `${where} ended ${finished.outcome}: ${finished.error?.message ?? 'no error recorded'}.${hint}`;
  // The run's own code when it is the library's (a context overflow), else the demo's.
  return isLoopkeeperErrorCode(code)
    ? new LoopkeeperError(message, { code })
    : new CommandError(message, { code: 'demo_run_failed' });
}
