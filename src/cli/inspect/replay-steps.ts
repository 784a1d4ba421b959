import {
  type AnyActorRef,
  type ExecutableActionObject,
  initialTransition,
  type SnapshotFrom,
  transition,
} from 'xstate';
import { agentLoopMachine } from '../../../machines/agent-loop.machine.js';
import type { AgentLoopEvent, AgentLoopInput } from '../../../machines/agent-loop.types.js';
import type { TelemetryEvent } from '../../events/telemetry-events.js';
import type { SessionEvent } from '../../log/events.js';
import type { ModelUsage } from '../../model/types.js';
import type { MutationPoint, SerializedError } from '../../vocabulary/index.js';
import { CommandError } from '../command-error.js';
import { type LogAnswer, logActors } from './log-actors.js';
import { LogCursor } from './log-cursor.js';

/** The part of the loop's context a log can tell. */
export interface ReplayContext {
  readonly sessionId: string;
  readonly runId: string | null;
  readonly runs: number;
  readonly steps: number;
  readonly consecutiveCompactions: number;
  readonly compactionReason: string | null;
  readonly lastUsage: ModelUsage | null;
  readonly lastError: SerializedError | null;
  readonly lastOutcome: string | null;
}

/** One state the loop entered, the event that took it there, and the telemetry it emitted on the way. */
export interface ReplayStep {
  readonly state: string;
  readonly event: { readonly type: string } & Readonly<Record<string, unknown>>;
  readonly context: ReplayContext;
  readonly telemetry: readonly TelemetryEvent[];
  /** The log event this step comes from. */
  readonly seq: number;
}

export type LoopSnapshot = SnapshotFrom<typeof agentLoopMachine>;
type ReplayTransition = { from: LoopSnapshot; event: ReplayStep['event']; to: LoopSnapshot };
type Draft = { -readonly [Key in keyof ReplayStep]: ReplayStep[Key] } & {
  telemetry: TelemetryEvent[];
};

/** States whose actor may leave no trace in the log: shown only when it did. */
const UNLOGGED = new Set(['running.checkingBudget', 'running.mutating', 'running.gatingTools']);

/**
 * Rebuilds, from a session log alone, the states the loop went through, by running the loop
 * machine itself: `agentLoopMachine.provide()` binds actors that answer from the log (`logActors`),
 * xstate's pure `transition()` takes each step, and the states, events and telemetry are the
 * machine's (the telemetry its `emit` actions and the actors report, stamped with the time of
 * the log event being read). Steps whose actor left no trace in the log (a budget check, a mutator
 * that changed nothing, a tool gate that asked for no approval) are passed through unshown, their
 * telemetry carried to the next step shown; durations are unknown (0). A run with no
 * `run-finished` stays where its log stops (a paused run in `running.awaitingApproval`); a run
 * resumed in place replays as one run.
 */
export function replaySteps({
  sessionId,
  events,
  onTransition,
}: {
  readonly sessionId: string;
  readonly events: readonly SessionEvent[];
  /** Sees every step the machine takes, shown or not: from which snapshot, on which event, to which. */
  readonly onTransition?: (step: ReplayTransition) => void;
}): ReplayStep[] {
  const log = new LogCursor(events);
  const { actors, readAnswer } = logActors(log);
  const machine = agentLoopMachine.provide({ actors });
  const steps: ReplayStep[] = [];
  let [snapshot] = initialTransition(machine, replayInput(sessionId, events));
  let open: Draft | undefined;
  let carried: readonly TelemetryEvent[] = [];
  // Every step reads the log or moves the machine; this bound only stops a replay that would not.
  let budget = 64 * (events.length + 1);
  for (; budget > 0; budget -= 1) {
    const child: AnyActorRef | undefined = Object.values(snapshot.children)[0];
    const answer = child === undefined || abortAhead(snapshot) ? undefined : readAnswer(child);
    const event =
      child === undefined || answer === undefined ? hostEvent(snapshot) : answered(child, answer);
    if (event === undefined) break;
    // An actor's done and error events are not in the machine's own event type.
    const [next, actions] = transition(machine, snapshot, event as AgentLoopEvent);
    if (next === snapshot) {
      // A host event the machine does not take here: the log event behind it is skipped.
      log.read(1);
      continue;
    }
    onTransition?.({ from: snapshot, event, to: next });
    snapshot = next;
    const at = log.last === undefined ? 0 : Date.parse(log.last.at);
    const draft: Draft = {
      state: pathOf(snapshot.value),
      event,
      context: replayContextOf(snapshot.context),
      telemetry: [...carried, ...emittedBy(actions, at)],
      seq: log.last?.seq ?? 0,
    };
    carried = [];
    if (open !== undefined && hidden.has(open)) {
      draft.event = open.event;
      draft.telemetry.unshift(...open.telemetry);
    } else if (open !== undefined) steps.push(open);
    open = draft;
  }
  if (budget === 0) {
    // A replay that neither reads the log nor moves the machine is a bug here, not in the log:
    // say so instead of showing a replay that silently stops part-way.
    throw new CommandError(
      `inspect: the replay of session ${sessionId} stopped making progress at log event seq ${log.peek()?.seq ?? log.last?.seq ?? 0} (state ${pathOf(snapshot.value)}); please report it with the log`,
      { code: 'replay_stalled' },
    );
  }
  if (open !== undefined) steps.push(open);
  return steps;

  /** The event an actor's answer sends the machine; the telemetry it reported goes with it. */
  function answered(child: AnyActorRef, answer: LogAnswer): ReplayStep['event'] {
    log.read(answer.read);
    open?.telemetry.push(...(answer.started ?? []));
    const traceless = answer.read === 0 && answer.status === 'done';
    if (open !== undefined && traceless && UNLOGGED.has(open.state)) hidden.add(open);
    carried = answer.finished ?? [];
    return answer.status === 'done'
      ? { type: `xstate.done.actor.${child.id}`, output: answer.output, actorId: child.id }
      : { type: `xstate.error.actor.${child.id}`, error: answer.error, actorId: child.id };
  }

  /** What the host sent next, as the log shows it; undefined when the log ends. */
  function hostEvent(current: LoopSnapshot): ReplayStep['event'] | undefined {
    for (let next = log.peek(); next !== undefined; next = log.peek()) {
      if (current.matches('idle') && next.type === 'run-started') {
        log.read(1);
        const user = log.peek();
        const item = user?.type === 'items-appended' ? user.items.find(isUser) : undefined;
        const content = item?.kind === 'user' ? item.content : '';
        return { type: 'user.message', content, runId: next.runId };
      }
      const manual = next.type === 'transcript-replaced' && next.reason === 'manual' && next.tier;
      if (current.matches('idle') && manual && manual !== 'mutator') return { type: 'compact' };
      if (current.matches('running') && next.type === 'approval-decided') {
        const reason = next.reason === undefined ? {} : { reason: next.reason };
        return { type: 'tool.approval', callId: next.callId, approved: next.approved, ...reason };
      }
      if (current.matches('running') && log.runEnd() !== undefined) return { type: 'abort' };
      // An event this replay cannot place (or, between runs, one it does not show): skipped.
      log.read(1);
    }
    return undefined;
  }

  /** An abort ends the run here (tools that were running keep their results). */
  function abortAhead(current: LoopSnapshot): boolean {
    const end = log.runEnd()?.event;
    const aborted = end?.type === 'run-finished' && end.outcome === 'aborted';
    return aborted && current.matches('running') && !current.matches({ running: 'toolResult' });
  }
}

const hidden = new WeakSet<object>();
const isUser = ({ kind }: { readonly kind: string }) => kind === 'user';

function pathOf(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  const [[parent, child] = []] = Object.entries(value);
  return `${parent}.${pathOf(child)}`;
}

function replayContextOf(context: LoopSnapshot['context']): ReplayContext {
  const { sessionId, runId, runs, steps, consecutiveCompactions, compactionReason } = context;
  const { lastUsage, lastError, lastOutcome } = context;
  return {
    sessionId,
    runId,
    runs,
    steps,
    consecutiveCompactions,
    compactionReason,
    lastUsage,
    lastError,
    lastOutcome,
  };
}

/** The telemetry a step's `emit` actions send, stamped with the time of the log event read. */
function emittedBy(actions: readonly ExecutableActionObject[], at: number): TelemetryEvent[] {
  return actions.flatMap((action) => {
    const { event } = (action.params ?? {}) as { readonly event?: TelemetryEvent };
    return action.type === 'xstate.emit' && event !== undefined ? [{ ...event, at }] : [];
  });
}

/**
 * The loop's configuration as far as its log shows it: mutators where they changed something,
 * a compactor and a cap that allow every compaction logged, approvals if any was asked, and a
 * step limit no run passed.
 */
function replayInput(sessionId: string, events: readonly SessionEvent[]): AgentLoopInput {
  const mutators = new Map<string, Set<MutationPoint>>();
  let point: MutationPoint = 'BeforeInference';
  let [compactor, approvals] = [false, false];
  let [cap, streak, stepLimit, mostSteps, answers] = [0, 0, Number.POSITIVE_INFINITY, 0, 0];
  for (const event of events) {
    if (event.type === 'run-started') [point, streak, answers] = ['BeforeInference', 0, 0];
    if (event.type === 'approval-requested') approvals = true;
    if (event.type === 'run-finished' && event.outcome === 'step_limit') {
      stepLimit = Math.min(stepLimit, event.steps);
    }
    if (event.type === 'items-appended') {
      for (const item of event.items) {
        if (item.kind === 'assistant') {
          [streak, answers] = [0, answers + 1];
          if ((item.toolCalls ?? []).length === 0) point = 'AfterTurnEnded';
        } else if (item.kind === 'toolResult') point = 'AfterToolResult';
        else if (item.kind === 'user') point = 'BeforeInference';
      }
      mostSteps = Math.max(mostSteps, answers);
    }
    if (event.type !== 'transcript-replaced' || event.tier === 'provider') continue;
    if (event.tier === 'mutator') {
      const name = event.strategies[0] ?? 'mutator';
      mutators.set(name, (mutators.get(name) ?? new Set()).add(point));
    } else if (event.reason === 'manual') cap = Math.max(cap, 1);
    else {
      compactor = true;
      if (event.tier !== 'emergency') streak += 1;
      cap = Math.max(cap, streak);
    }
  }
  return {
    sessionId,
    maxConsecutiveCompactions: cap,
    maxStepsPerRun: Number.isFinite(stepLimit) ? stepLimit : mostSteps + 1,
    mutators: [...mutators].map(([name, points]) => ({ name, points: [...points] })),
    compactor: compactor ? 'compactor' : null,
    approvals,
  };
}
