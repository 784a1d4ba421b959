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
  #run: { runId: string; startSeq: number } | null = null;
  #steps = 0;
  readonly #started = new Map<string, string>();
  readonly #requested = new Map<string, ApprovalRequest>();
  readonly #decided = new Map<string, LoggedDecision>();
  readonly #answered = new Set<string>();

  observe(event: SessionEvent): void {
    switch (event.type) {
      case 'run-started':
        this.#forget();
        this.#run = { runId: event.runId, startSeq: event.seq };
        return;
      case 'run-finished':
        if (event.runId === this.#run?.runId) {
          this.#forget();
          this.#run = null;
        }
        return;
      default:
        break;
    }
    if (this.#run === null || event.runId !== this.#run.runId) return;
    switch (event.type) {
      case 'items-appended':
        for (const item of event.items) {
          if (item.kind === 'assistant') this.#steps += 1;
          else if (item.kind === 'toolResult') this.#answered.add(item.callId);
        }
        return;
      case 'tool-calls-started':
        for (const call of event.calls) this.#started.set(call.callId, call.argumentsHash);
        return;
      case 'approval-requested':
        for (const call of event.calls) this.#requested.set(call.callId, call);
        return;
      case 'approval-decided':
        this.#decided.set(event.callId, {
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
    return this.#run === null ? null : { ...this.#run, steps: this.#steps };
  }

  /** The arguments hash a call was started with, when the log says it was started. */
  startedHash(callId: string): string | undefined {
    return this.#started.get(callId);
  }

  request(callId: string): ApprovalRequest | undefined {
    return this.#requested.get(callId);
  }

  decision(callId: string): LoggedDecision | undefined {
    return this.#decided.get(callId);
  }

  /** Requested calls of the run with no decision yet, in the order they were requested. */
  get undecided(): readonly ApprovalRequest[] {
    return [...this.#requested.values()].filter((call) => !this.#decided.has(call.callId));
  }

  /** Requested calls still waiting: no decision and no result yet, in request order. */
  get waiting(): readonly ApprovalRequest[] {
    return this.undecided.filter((call) => !this.#answered.has(call.callId));
  }

  #forget(): void {
    this.#answered.clear();
    this.#steps = 0;
    this.#started.clear();
    this.#requested.clear();
    this.#decided.clear();
  }
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
