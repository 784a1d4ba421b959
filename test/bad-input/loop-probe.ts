import {
  createAgentLoop,
  effectiveHistory,
  type Item,
  type LoopMutator,
  MemorySessionStore,
  type ModelAdapter,
  runTurn,
  type SessionEvent,
  type SessionStore,
  validateTranscript,
} from 'loopkeeper';
import type { Compactor } from 'loopkeeper/compaction';
import type { UserContent } from 'loopkeeper/machines';
import type { TurnResult } from 'loopkeeper/runtime';
import type { TokenCounter } from 'loopkeeper/tokens';
import type { AnyToolDefinition } from 'loopkeeper/tools';
import { keepsPrefix } from '../faults/fault-row.js';
import { readSession, whenIdle } from '../support/loop-harness.js';

export interface LoopProbeOptions {
  /** Must answer the warm-up turn (`Hello.`) with its first answer. */
  readonly model: ModelAdapter;
  readonly tokens: TokenCounter;
  /** The bad (or odd) message; default a plain request. */
  readonly content?: unknown;
  readonly tools?: readonly AnyToolDefinition[];
  readonly compactor?: Compactor;
  readonly mutators?: readonly LoopMutator[];
  readonly toolTimeoutMs?: number;
  readonly store?: SessionStore;
}

export interface LoopProbe {
  /** The run the bad input went into. */
  readonly finished: TurnResult;
  /** One more, well-formed turn sent afterwards. */
  readonly next: TurnResult;
  /** The actor was back in `idle` with nothing queued after the bad run. */
  readonly idle: boolean;
  /** Events logged before the bad input are an unchanged prefix of the log after it. */
  readonly kept: boolean;
  /** The log's effective history validated right after the bad run. */
  readonly logValid: boolean;
  /** Events the bad run logged. */
  readonly logged: readonly SessionEvent[];
  /** Items the bad run appended. */
  readonly appended: readonly Item[];
  readonly events: readonly SessionEvent[];
}

/**
 * Sends a warm-up turn, then the bad input, then one well-formed turn, and reports what the
 * log and the actor looked like: the loop's side of every bad-input row.
 */
export async function probeLoop({
  model,
  tokens,
  content = 'Do the thing.',
  tools = [],
  compactor,
  mutators = [],
  toolTimeoutMs,
  store = new MemorySessionStore(),
}: LoopProbeOptions): Promise<LoopProbe> {
  const loop = createAgentLoop({
    model,
    tokens,
    tools,
    mutators,
    store,
    ...(compactor === undefined ? {} : { compactor }),
    ...(toolTimeoutMs === undefined ? {} : { toolTimeoutMs }),
  });
  loop.start();
  try {
    const warmUp = await runTurn(loop, 'Hello.');
    if (warmUp.outcome !== 'completed') {
      throw new Error(`warm-up turn ended ${warmUp.outcome}: ${warmUp.error?.message}`);
    }
    const sessionId = loop.session.sessionId;
    const before = await readSession(store, sessionId);
    const finished = await runTurn(loop, content as UserContent);
    await whenIdle(loop);
    const snapshot = loop.getSnapshot();
    const idle = snapshot.value === 'idle' && snapshot.context.queue.length === 0;
    const after = await readSession(store, sessionId);
    const logValid = validateTranscript(effectiveHistory(after)).length === 0;
    const logged = after.slice(before.length);
    const appended = logged.flatMap((event) =>
      event.type === 'items-appended' ? event.items : [],
    );
    const next = await runTurn(loop, 'Thanks, carry on.');
    const events = await readSession(store, sessionId);
    return {
      finished,
      next,
      idle,
      kept: keepsPrefix(before, after) && keepsPrefix(after, events),
      logValid,
      logged,
      appended,
      events,
    };
  } finally {
    loop.stop();
  }
}
