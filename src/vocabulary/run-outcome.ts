/** How a run ended, as its `run-finished` event and `RunFinished` telemetry record it. */
export type RunOutcome = 'completed' | 'failed' | 'aborted' | 'step_limit';

/** How a turn ended for now: a run outcome, or paused until calls are decided. */
export type TurnOutcome = RunOutcome | 'awaiting_approval';
