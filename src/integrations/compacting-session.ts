import { randomUUID } from 'node:crypto';
import type { Compactor } from '../compaction/compactor-types.js';
import { replacedItemId } from '../compaction/helpers/derived-item.js';
import { ArtifactLedger } from '../compaction/ledger/artifact-ledger.js';
import { ConfigError } from '../errors/config-error.js';
import { ContextOverflowError } from '../errors/context-overflow-error.js';
import { LoopkeeperError } from '../errors/loopkeeper-error.js';
import type { NewSessionEvent } from '../log/events.js';
import { buildReplacementView } from '../log/replacement-view.js';
import type { SessionStore } from '../log/store.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter } from '../tokens/types.js';
import type { Item } from '../transcript/types.js';
import type { MutationPoint, RunOutcome } from '../vocabulary/index.js';
import { type CompactionRecord, compactOnce, type MarkerFields } from './compact-once.js';
import { Conversation, type MessageCodec } from './conversation.js';
import { SessionRecorder } from './session-recorder.js';

/** Options every framework integration shares. */
export interface CompactingSessionOptions {
  /** The compactor (`createCompactor`): its trigger, tiers and summarizer backend. */
  readonly compactor: Compactor;
  /** Counts tokens; default `await createTokenCounter()` (o200k_base), loaded on first use. */
  readonly tokens?: TokenCounter;
  /**
   * Compactions allowed before one request; past them a prompt still over the window fails
   * with `ContextOverflowError`. Default 3.
   */
  readonly maxConsecutiveCompactions?: number;
  /**
   * Tokens each request holds besides the messages (system prompt, tool schemas) until the
   * provider's first reported usage measures them. Default 0.
   */
  readonly overheadTokens?: number;
  /** Record every step and compaction to this store, so `loopkeeper show` and `inspect` read the run. */
  readonly store?: SessionStore;
  /** The session to record to; required with `store`. */
  readonly sessionId?: string;
  /** Called after each compaction with what it did. */
  readonly onCompaction?: (record: CompactionRecord) => void;
}

/** What the provider reported for the previous request. */
export interface ReportedStep {
  readonly model: string;
  readonly promptTokens: number | undefined;
  readonly completionTokens: number | undefined;
  readonly cachedTokens?: number | undefined;
}

/**
 * The framework-neutral core of the AI SDK and LangChain integrations: follows one
 * conversation, compacts it before a request when the trigger fires (tiers under the cap,
 * hysteresis from the compactor's budget), and records runs, items, usage and compactions.
 */
export class CompactingSession<M> {
  readonly #owner: string;
  readonly #codec: MessageCodec<M>;
  readonly #compactor: Compactor;
  readonly #cap: number;
  readonly #recorder: SessionRecorder | undefined;
  readonly #onCompaction: ((record: CompactionRecord) => void) | undefined;
  readonly #givenTokens: TokenCounter | undefined;
  #tokens: Promise<TokenCounter> | undefined;
  #conversation: Conversation<M>;
  /**
   * The artifact trail of every message followed (files, commands, errors, identifiers), folded
   * as they come: every summary renders it, as the agent loop's session ledger, so facts older
   * than the previous summary are not left to that summary's folded lines.
   */
  #ledger = new ArtifactLedger();
  #runId: string | undefined;
  #runStart = 0;
  #overheadTokens: number;
  /** The previous request: how many items it held, our estimate of them, and its epoch. */
  #lastRequest: { itemCount: number; estimate: number; epoch: number } | undefined;
  #compactions = 0;

  constructor({
    owner,
    codec,
    options: {
      compactor,
      tokens,
      maxConsecutiveCompactions = 3,
      overheadTokens = 0,
      store,
      sessionId,
      onCompaction,
    },
  }: {
    readonly owner: string;
    readonly codec: MessageCodec<M>;
    readonly options: CompactingSessionOptions;
  }) {
    if (!Number.isInteger(maxConsecutiveCompactions) || maxConsecutiveCompactions < 1) {
      throw new ConfigError(
        `${owner}: maxConsecutiveCompactions must be a positive integer, got ${maxConsecutiveCompactions}`,
        { code: 'config_invalid_option' },
      );
    }
    if (store !== undefined && (sessionId === undefined || sessionId === '')) {
      throw new ConfigError(`${owner}: a store needs a sessionId to record to`, {
        code: 'config_invalid_option',
      });
    }
    this.#owner = owner;
    this.#codec = codec;
    this.#compactor = compactor;
    this.#cap = maxConsecutiveCompactions;
    this.#overheadTokens = overheadTokens;
    this.#givenTokens = tokens;
    this.#onCompaction = onCompaction;
    this.#recorder =
      store === undefined ? undefined : new SessionRecorder({ store, sessionId: sessionId ?? '' });
    this.#conversation = this.#newConversation();
  }

  get history(): readonly Item[] {
    return this.#conversation.items;
  }

  get compactions(): number {
    return this.#compactions;
  }

  /** How many of the framework's messages the conversation has followed. */
  get messageCount(): number {
    return this.#conversation.messageCount;
  }

  get running(): boolean {
    return this.#runId !== undefined;
  }

  #newConversation(): Conversation<M> {
    return new Conversation({ idPrefix: `lk${randomUUID().slice(0, 6)}.`, codec: this.#codec });
  }

  #counter(): Promise<TokenCounter> {
    this.#tokens ??=
      this.#givenTokens === undefined ? createTokenCounter() : Promise.resolve(this.#givenTokens);
    return this.#tokens;
  }

  #withRun(): { runId?: string } {
    return this.#runId === undefined ? {} : { runId: this.#runId };
  }

  /** Starts a run: `messages` are what it begins with. */
  async startRun(messageCount: number): Promise<void> {
    this.#runId = randomUUID();
    this.#runStart = messageCount;
    await this.#recorder?.append([{ type: 'run-started', runId: this.#runId }]);
  }

  /** The run's messages: the ones it started with, then `later` (every step's response). */
  runMessages(later: readonly M[]): M[] {
    return [...this.#conversation.seenPrefix(this.#runStart), ...later];
  }

  /** Usage of the previous request as a log event; calibrates the overhead. */
  #usageEvents(step: ReportedStep | undefined): NewSessionEvent[] {
    const last = this.#lastRequest;
    if (step?.promptTokens === undefined || last === undefined) return [];
    this.#overheadTokens = Math.max(0, step.promptTokens - last.estimate);
    return [
      {
        type: 'usage-reported',
        ...this.#withRun(),
        model: step.model,
        promptTokens: step.promptTokens,
        completionTokens: step.completionTokens ?? 0,
        ...(step.cachedTokens === undefined ? {} : { cachedTokens: step.cachedTokens }),
        estimatedPromptTokens: last.estimate,
      },
    ];
  }

  async #follow(messages: readonly M[], step: ReportedStep | undefined): Promise<void> {
    if (!this.#conversation.continuedBy(messages)) {
      if (this.#recorder !== undefined) {
        throw new ConfigError(
          `${this.#owner}: these messages do not continue the conversation recorded to session ${this.#recorder.sessionId}; use one instance (and session) per conversation`,
          { code: 'config_invalid_input' },
        );
      }
      this.#conversation = this.#newConversation();
      this.#ledger = new ArtifactLedger();
      this.#lastRequest = undefined;
    }
    const usage = this.#usageEvents(step);
    const items = this.#conversation.append(messages);
    this.#ledger.append(items);
    await this.#recorder?.append([
      ...usage,
      ...(items.length === 0
        ? []
        : [{ type: 'items-appended' as const, ...this.#withRun(), items }]),
    ]);
  }

  /**
   * The messages to send next: `messages` (the framework's whole list) followed, compacted
   * when the trigger fires. `step` is what the provider reported for the previous request.
   */
  async prepare({
    messages,
    step,
    point,
    stepNumber,
  }: {
    readonly messages: readonly M[];
    readonly step: ReportedStep | undefined;
    readonly point: MutationPoint;
    readonly stepNumber: number;
  }): Promise<M[]> {
    const tokens = await this.#counter();
    try {
      const epoch = this.#conversation.epoch;
      const last = this.#lastRequest;
      await this.#follow(messages, step);
      const conversation = this.#conversation;
      const reported =
        last !== undefined && last.epoch === epoch && step?.promptTokens !== undefined
          ? { promptTokens: step.promptTokens, itemCount: last.itemCount }
          : undefined;
      // The cap changes only the step's new outputs, which the reported usage does not cover.
      if (point === 'AfterToolResult') await this.#capNewOutputs(tokens);
      for (let attempt = 0; ; attempt += 1) {
        const transcript = conversation.items;
        const input = {
          transcript,
          tokens,
          point,
          overheadTokens: this.#overheadTokens,
          ...(attempt === 0 && reported !== undefined ? { reported } : {}),
        };
        const decision = this.#compactor.evaluate(input);
        if (!decision.fire) break;
        const limit = decision.budget.limitTokens ?? decision.budget.maxTokens;
        const record =
          attempt >= this.#cap
            ? undefined
            : await compactOnce({
                compactor: this.#compactor,
                input: {
                  ...input,
                  reason: 'threshold',
                  decision,
                  signal: new AbortController().signal,
                  ledger: this.#ledger,
                },
                originalOf: (id) => conversation.original(id),
                stepNumber,
              });
        if (record === undefined) {
          if (decision.tokens <= limit) break;
          throw new ContextOverflowError(
            `${this.#owner}: the prompt holds ${decision.tokens} tokens, over the limit of ${limit}, after ${attempt} compaction${attempt === 1 ? '' : 's'}`,
          );
        }
        await this.#replace(record.transcript, record.marker(transcript));
        this.#compactions += 1;
        this.#onCompaction?.(record);
      }
      this.#lastRequest = {
        itemCount: conversation.items.length,
        estimate: tokens.count(conversation.items),
        epoch: conversation.epoch,
      };
      return conversation.messages();
    } catch (error) {
      await this.#fail(error, stepNumber);
      throw error;
    }
  }

  /**
   * The compactor's cap on the step's new tool outputs (`toolOutputLimit`), as the agent loop
   * runs it: the request shows the clipped copies, the framework's own list and the log keep
   * the outputs whole, and a `transcript-replaced` marker (tier `mutator`) records the copy.
   */
  async #capNewOutputs(tokens: TokenCounter): Promise<void> {
    const cap = this.#compactor.toolOutputLimit;
    if (cap === undefined) return;
    const previous = this.#conversation.items;
    const output = await cap.mutate({
      transcript: previous,
      tokens,
      point: 'AfterToolResult',
      signal: new AbortController().signal,
    });
    if (!output.dirty) return;
    await this.#replace(output.transcript, {
      view: buildReplacementView({ previous, next: output.transcript, originOf: replacedItemId }),
      reason: 'manual',
      tier: 'mutator',
      strategies: [cap.name],
      tokensBefore: tokens.count(previous),
      tokensAfter: tokens.count(output.transcript),
    });
  }

  /** Puts `next` in the conversation's place and logs the change as one marker. */
  async #replace(next: readonly Item[], marker: MarkerFields): Promise<void> {
    const throughSeq = this.#recorder === undefined ? 0 : await this.#recorder.lastSeq();
    this.#conversation.replace(next);
    await this.#recorder?.append([
      { type: 'transcript-replaced', ...this.#withRun(), throughSeq, ...marker },
    ]);
  }

  async #fail(error: unknown, steps: number): Promise<void> {
    const runId = this.#runId;
    if (this.#recorder === undefined || runId === undefined) return;
    this.#runId = undefined;
    const known = LoopkeeperError.isInstance(error) ? error : undefined;
    await this.#recorder
      .append([
        {
          type: 'run-finished',
          runId,
          outcome: 'failed',
          steps,
          error: {
            name: known?.name ?? 'Error',
            code: known?.code ?? 'unknown',
            message: error instanceof Error ? error.message : String(error),
          },
        },
      ])
      .catch(() => undefined);
  }

  /** Records the run's last messages and its end. */
  async finishRun({
    messages,
    step,
    steps,
    outcome = 'completed',
  }: {
    readonly messages: readonly M[];
    readonly step: ReportedStep | undefined;
    readonly steps: number;
    readonly outcome?: RunOutcome;
  }): Promise<void> {
    const runId = this.#runId;
    if (runId === undefined) return;
    await this.#follow(messages, step);
    this.#runId = undefined;
    await this.#recorder?.append([{ type: 'run-finished', runId, outcome, steps }]);
  }
}
