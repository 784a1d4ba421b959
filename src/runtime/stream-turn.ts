import { randomUUID } from 'node:crypto';
import type { UserContent } from '../../machines/agent-loop.types.js';
import { LoopNotRunningError } from '../errors/loop-not-running-error.js';
import type { AgentLoopActor } from './create-agent-loop.js';
import { isLoopRunning } from './is-loop-running.js';
import { streamPartOf, type TurnStreamPart } from './turn-stream-part.js';
import { waitForTurn } from './wait-for-turn.js';

/** The parts of one turn, as `streamTurn` yields them. */
export interface TurnStream extends AsyncIterableIterator<TurnStreamPart> {
  /** The run the turn's message starts: the `runId` of its telemetry and log events. */
  readonly runId: string;
}

/**
 * Sends one user message, like `runTurn`, and yields the parts of the run it starts as they
 * happen: `step_started`, `reasoning_delta`, `text_delta`, `tool_call_delta`, `step_finished`,
 * `tool_call_started`, `tool_progress`, `tool_call_finished`, `approval_requested`, the
 * compaction parts, and last `{type: 'finish', result}` with the result `runTurn` resolves with
 * (a finished run, including a failed or aborted one, or a run paused for approval). It throws
 * what `runTurn` rejects with (`LoopNotRunningError`), after the parts that came before.
 *
 * Parts are buffered, never dropped: a slow consumer does not slow the loop. Leaving the loop
 * early (`break`, a throw) stops the stream and removes its listeners, but the run goes on; to
 * stop the run, send `{type: 'abort'}` to the loop, and the stream ends with the aborted result.
 * The message is sent at once, not on the first `next()`.
 *
 * @example
 * ```ts
 * import { createAgentLoop } from 'loopkeeper';
 * import { streamTurn } from 'loopkeeper/runtime';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const loop = createAgentLoop({ model: new ScriptedModel({ turns: [{ text: 'Paris.' }] }) });
 * loop.start();
 * for await (const part of streamTurn(loop, 'Capital of France?')) {
 *   if (part.type === 'text_delta') process.stdout.write(part.delta);
 *   if (part.type === 'finish') console.log('\n', part.result.outcome, part.result.usage);
 * }
 * ```
 */
export function streamTurn(loop: AgentLoopActor, content: UserContent): TurnStream {
  const runId = `${loop.session.sessionId}:run-${randomUUID()}`;
  const buffer = new PartBuffer();
  if (!isLoopRunning(loop)) {
    buffer.fail(
      new LoopNotRunningError(
        'streamTurn: the loop is not running; call start() first, or open a new loop on the session',
      ),
    );
    return turnStream(runId, buffer, () => undefined);
  }
  const stopWaiting = new AbortController();
  const listener = loop.on('*', (event) => {
    if (event.runId !== runId) return;
    const part = streamPartOf(event);
    if (part !== undefined) buffer.push(part);
  });
  const stop = (): void => {
    listener.unsubscribe();
    stopWaiting.abort();
  };
  waitForTurn(loop, runId, { decided: [], fromLog: false, until: stopWaiting.signal }).then(
    (result) => {
      stop();
      buffer.push({ type: 'finish', result });
      buffer.end();
    },
    (error: unknown) => {
      stop();
      buffer.fail(error);
    },
  );
  loop.send({ type: 'user.message', content, runId });
  return turnStream(runId, buffer, stop);
}

function turnStream(runId: string, buffer: PartBuffer, stop: () => void): TurnStream {
  return {
    runId,
    next: () => buffer.next(),
    return: async () => {
      stop();
      buffer.close();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * Parts waiting for the consumer, in order, without limit; then the end or an error. A head
 * index instead of `shift()` keeps taking a part O(1) however long the buffer grows.
 */
class PartBuffer {
  #parts: (TurnStreamPart | undefined)[] = [];
  #head = 0;
  #ended = false;
  #closed = false;
  #failure: { readonly error: unknown } | undefined;
  #waiting: (() => void)[] = [];

  push(part: TurnStreamPart): void {
    if (this.#ended) return;
    this.#parts.push(part);
    this.#wake();
  }

  /** No more parts come: the consumer gets the rest, then the end. */
  end(): void {
    this.#ended = true;
    this.#wake();
  }

  /** No more parts come: the consumer gets the rest, then `error` is thrown. */
  fail(error: unknown): void {
    if (this.#ended) return;
    this.#failure = { error };
    this.end();
  }

  /** The consumer left: what is buffered is dropped and every later `next()` is done. */
  close(): void {
    this.#closed = true;
    this.#ended = true;
    this.#parts = [];
    this.#head = 0;
    this.#wake();
  }

  async next(): Promise<IteratorResult<TurnStreamPart, undefined>> {
    for (;;) {
      if (this.#closed) return { done: true, value: undefined };
      if (this.#head < this.#parts.length) return { done: false, value: this.#take() };
      if (this.#ended) {
        this.#closed = true;
        const failure = this.#failure;
        this.#failure = undefined;
        if (failure !== undefined) throw failure.error;
        return { done: true, value: undefined };
      }
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
  }

  #take(): TurnStreamPart {
    const part = this.#parts[this.#head] as TurnStreamPart;
    this.#parts[this.#head] = undefined;
    this.#head += 1;
    if (this.#head === this.#parts.length) {
      this.#parts = [];
      this.#head = 0;
    }
    return part;
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }
}
