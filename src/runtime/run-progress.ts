import type { ApprovalRequest, SessionEvent } from '../log/events.js';

/** A decision as the log records it. */
export interface LoggedDecision {
  readonly approved: boolean;
  readonly reason?: string;
  readonly argumentsHash: string;
}

/** A run whose `run-started` is in the log and whose `run-finished` is not. */
export interface UnfinishedRun {
  readonly runId: string;
  /** Seq of its `run-started`: its own events are all at or after it. */
  readonly startSeq: number;
  /** Inferences it made so far (its assistant items), so the step limit counts across a resume. */
  readonly steps: number;
}

/**
 * What the log says about the run in progress: which tool calls were started, which wait for a
 * person, and what was decided. Followed event by event (O(new events)); it forgets everything
 * when a run finishes, so it holds one run's facts at most. Resume and approvals read it.
 */
export class RunProgress {
  /** The facts of the run in progress; none between runs, so an idle loop holds no maps. */
  #run: RunFacts | null = null;

  observe(event: SessionEvent): void {
    switch (event.type) {
      case 'run-started':
        this.#run = newRunFacts(event.runId, event.seq);
        return;
      case 'run-finished':
        if (event.runId === this.#run?.runId) this.#run = null;
        return;
      default:
        break;
    }
    const run = this.#run;
    if (run === null || event.runId !== run.runId) return;
    switch (event.type) {
      case 'items-appended':
        for (const item of event.items) {
          if (item.kind === 'assistant') run.steps += 1;
          else if (item.kind === 'toolResult') run.answered.add(item.callId);
        }
        return;
      case 'tool-calls-started':
        for (const call of event.calls) run.started.set(call.callId, call.argumentsHash);
        return;
      case 'approval-requested':
        for (const call of event.calls) run.requested.set(call.callId, call);
        return;
      case 'approval-decided':
        run.decided.set(event.callId, {
          approved: event.approved,
          argumentsHash: event.argumentsHash,
          ...(event.reason === undefined ? {} : { reason: event.reason }),
        });
        return;
      default:
        return;
    }
  }

  /** The run in progress in the log, or null when every run is finished. */
  get unfinishedRun(): UnfinishedRun | null {
    const run = this.#run;
    return run === null ? null : { runId: run.runId, startSeq: run.startSeq, steps: run.steps };
  }

  /** The arguments hash a call was started with, when the log says it was started. */
  startedHash(callId: string): string | undefined {
    return this.#run?.started.get(callId);
  }

  request(callId: string): ApprovalRequest | undefined {
    return this.#run?.requested.get(callId);
  }

  decision(callId: string): LoggedDecision | undefined {
    return this.#run?.decided.get(callId);
  }

  /** Requested calls of the run with no decision yet, in the order they were requested. */
  get undecided(): readonly ApprovalRequest[] {
    const run = this.#run;
    if (run === null) return [];
    return [...run.requested.values()].filter((call) => !run.decided.has(call.callId));
  }

  /** Requested calls still waiting: no decision and no result yet, in request order. */
  get waiting(): readonly ApprovalRequest[] {
    const answered = this.#run?.answered;
    return this.undecided.filter((call) => answered?.has(call.callId) !== true);
  }
}

/** What the log says of one run in progress. */
interface RunFacts {
  readonly runId: string;
  readonly startSeq: number;
  steps: number;
  readonly started: Map<string, string>;
  readonly requested: Map<string, ApprovalRequest>;
  readonly decided: Map<string, LoggedDecision>;
  readonly answered: Set<string>;
}

function newRunFacts(runId: string, startSeq: number): RunFacts {
  return {
    runId,
    startSeq,
    steps: 0,
    started: new Map(),
    requested: new Map(),
    decided: new Map(),
    answered: new Set(),
  };
}

/**
 * The calls a session's unfinished run waits for, from its events alone (no loop needed): a
 * store's reader, the CLI's `show` or a Restate handler can list them. Empty when every run is
 * finished or nothing waits.
 *
 * @example
 * ```ts
 * import { MemorySessionStore } from 'loopkeeper';
 * import { pendingApprovalsIn } from 'loopkeeper/runtime';
 *
 * const store = new MemorySessionStore();
 * const events = [];
 * for await (const event of store.read('deploys')) events.push(event);
 * console.log(pendingApprovalsIn(events)); // [] for a session with no waiting run
 * ```
 */
export function pendingApprovalsIn(events: Iterable<SessionEvent>): readonly ApprovalRequest[] {
  const progress = new RunProgress();
  for (const event of events) progress.observe(event);
  return progress.waiting;
}
