import { performance } from 'node:perf_hooks';
import { createCompactor } from '../../src/compaction/compactor.js';
import { extractiveSummarizer } from '../../src/compaction/summarizers/extractive.js';
import { contextWindowTrigger } from '../../src/compaction/triggers/context-window-trigger.js';
import { MemorySessionStore } from '../../src/log/memory-store.js';
import { buildReplacementView } from '../../src/log/replacement-view.js';
import { chatRequestBody } from '../../src/model/chat-request.js';
import { LoopSession } from '../../src/runtime/loop-session.js';
import type { TokenCounter } from '../../src/tokens/types.js';
import type { Item } from '../../src/transcript/types.js';
import { validateTranscript } from '../../src/transcript/validate-transcript.js';
import { BENCH_OUTPUT_RESERVE } from './budget.js';

/** Where one step's time went, in milliseconds. */
export interface StepTiming {
  readonly total: number;
  /** Appending to the log and projection, the protocol check, the incremental token total. */
  readonly bookkeeping: number;
  /** The compactor's trigger check (the whole compaction, when it fired). */
  readonly trigger: number;
  /** Building the Chat Completions request body from the effective history. */
  readonly request: number;
  readonly compacted: boolean;
}

const runId = 'run_bench';

/**
 * Drives a session the way the loop's actors do between two model calls, without the model:
 * log the usage and the answer, log the tool results, run the compactor at `AfterToolResult`
 * (recording a marker when it compacts), check the protocol, update the token estimate, build
 * the request. With `compact: false` the trigger is evaluated but never acted on.
 */
export class LoopkeeperDriver {
  readonly session: LoopSession;
  readonly #counter: TokenCounter;
  readonly #compactor: ReturnType<typeof createCompactor>;
  readonly #compact: boolean;
  readonly #signal = new AbortController().signal;
  #estimate = 0;
  #compactions = 0;
  #lastBody: unknown;

  private constructor(options: {
    session: LoopSession;
    counter: TokenCounter;
    window: number;
    compact: boolean;
  }) {
    this.session = options.session;
    this.#counter = options.counter;
    this.#compact = options.compact;
    this.#compactor = createCompactor({
      trigger: contextWindowTrigger({
        window: options.window,
        outputReserve: BENCH_OUTPUT_RESERVE,
      }),
      backend: extractiveSummarizer(),
    });
  }

  static async start({
    counter,
    window,
    prelude,
    compact = true,
  }: {
    readonly counter: TokenCounter;
    readonly window: number;
    readonly prelude: readonly Item[];
    readonly compact?: boolean;
  }): Promise<LoopkeeperDriver> {
    const session = new LoopSession({
      store: new MemorySessionStore(),
      sessionId: 'bench',
      tokens: counter,
    });
    await session.open();
    session.beginRun(runId);
    await session.appendForRun(runId, [
      { type: 'run-started', runId },
      { type: 'items-appended', runId, items: prelude },
    ]);
    const driver = new LoopkeeperDriver({ session, counter, window, compact });
    driver.#estimate = session.estimateTokens(counter);
    return driver;
  }

  get compactions(): number {
    return this.#compactions;
  }

  /** The items of the request that would be sent now. */
  get requestItems(): readonly Item[] {
    return this.session.items;
  }

  /** Keeps the last request body reachable, so building it cannot be optimised away. */
  get lastBody(): unknown {
    return this.#lastBody;
  }

  /** One step: `items` is the model's answer followed by what came before the next request. */
  async step(items: readonly Item[]): Promise<StepTiming> {
    const [answer, ...following] = items;
    if (answer === undefined) throw new Error('bench: a step needs the model answer');
    const counter = this.#counter;
    const session = this.session;
    const started = performance.now();
    await session.appendForRun(runId, [
      {
        type: 'usage-reported',
        runId,
        model: 'bench',
        promptTokens: this.#estimate,
        completionTokens: counter.countItem(answer),
      },
      { type: 'items-appended', runId, items: [answer] },
    ]);
    if (following.length > 0) {
      await session.appendForRun(runId, [{ type: 'items-appended', runId, items: following }]);
    }
    const appended = performance.now();

    const previous = session.items;
    const reported = session.reported;
    let compacted = false;
    // As the loop's checkBudget does: the trigger gets the session's incremental total.
    const decision = this.#compactor.evaluate({
      transcript: previous,
      tokens: counter,
      estimatedTokens: session.estimateTokens(counter),
      ...(reported === undefined ? {} : { reported }),
    });
    if (this.#compact && decision.fire) {
      const output = await this.#compactor.mutate({
        transcript: previous,
        tokens: counter,
        point: 'AfterToolResult',
        signal: this.#signal,
        ...(reported === undefined ? {} : { reported }),
      });
      if (output.dirty) {
        const problems = validateTranscript(output.transcript);
        if (problems.length > 0)
          throw new Error(`bench: compaction broke the protocol: ${problems[0]?.message}`);
        const marker = output.marker;
        if (marker === undefined) throw new Error('bench: a compaction without a marker');
        await session.appendForRun(runId, [
          {
            type: 'transcript-replaced',
            runId,
            throughSeq: session.lastSeq,
            view: buildReplacementView({ previous, next: output.transcript }),
            ...marker,
          },
        ]);
        compacted = true;
        this.#compactions += 1;
      }
    }
    const checked = performance.now();

    session.assertReadyForModel();
    this.#estimate = session.estimateTokens(counter);
    const estimated = performance.now();
    this.#lastBody = chatRequestBody({
      request: { transcript: session.items, tools: [], signal: this.#signal },
      model: 'bench',
      temperature: undefined,
    });
    const built = performance.now();
    return {
      total: built - started,
      bookkeeping: appended - started + (estimated - checked),
      trigger: checked - appended,
      request: built - estimated,
      compacted,
    };
  }
}
