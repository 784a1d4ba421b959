import type { InspectionEvent, Observer } from 'xstate';
import { DEFAULT_SUMMARY_INPUT_TOKENS } from '../compaction/summarizers/chunk-input.js';
import { renderSummaryInput } from '../compaction/summarizers/render.js';
import {
  DEFAULT_SUMMARY_PROMPT,
  summaryUserMessage,
} from '../compaction/summarizers/summary-prompt.js';
import { validateSummaryText } from '../compaction/summary.js';
import type { CompactionBackend, SummaryRequest, SummaryResult } from '../compaction/types.js';
import { AbortedError } from '../errors/aborted-error.js';
import { CompactionError } from '../errors/compaction-error.js';
import { ConfigError } from '../errors/config-error.js';
import type { TelemetryEvent } from '../events/telemetry-events.js';
import { MemorySessionStore } from '../log/memory-store.js';
import type { ModelAdapter } from '../model/types.js';
import { createTokenCounter } from '../tokens/create-token-counter.js';
import type { TokenCounter, TokenEncoding } from '../tokens/types.js';
import { createToolRegistry } from '../tools/tool-registry.js';
import type { AnyToolDefinition } from '../tools/types.js';
import { AgentLoopActor, createAgentLoopLogic } from './create-agent-loop.js';
import { isLoopRunning } from './is-loop-running.js';
import { runTurn } from './run-turn.js';

export interface AgentSummarizerOptions {
  /** The summarizing agent's model; it can be smaller and cheaper than the agent's own. */
  readonly model: ModelAdapter;
  /** Tools the summarizing agent may call to check facts before it answers (read a file, ...). */
  readonly tools?: readonly AnyToolDefinition[];
  /** Replaces the system prompt; it must still ask for the fixed sections. */
  readonly instructions?: string;
  /** The most tokens of record one call is given; larger input is chunked by `summarizeOlder`. */
  readonly maxInputTokens?: number;
  /** Inferences the child loop may make for one summary (its `maxStepsPerRun`). Default 8. */
  readonly maxSteps?: number;
  readonly toolTimeoutMs?: number;
  /** A ready token counter for the child loop; otherwise one is loaded on the first summary. */
  readonly tokens?: TokenCounter;
  readonly encoding?: TokenEncoding;
  /** The backend's name in metadata and telemetry. Default `agent:<model name>`. */
  readonly name?: string;
  /** Inspector for child loops run outside a loop; inside one, the loop's inspector sees them. */
  readonly inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  /** Receives every telemetry event of every child loop, inside a loop or not. */
  readonly onTelemetry?: (event: TelemetryEvent) => void;
}

const TOOL_NOTE = [
  '',
  'You may call the tools you are given to check facts the record mentions before you answer.',
  'Use them only to describe the session more accurately, never to carry on with its tasks.',
  'Your final answer is the summary alone.',
].join('\n');

/**
 * A summarizer backend that runs a nested agent loop: each
 * summary is one run of a real loop actor with its own memory session, given the rendered
 * record as its user message; its final assistant text is the summary. Inside a loop's
 * compaction the child is created in the loop's actor system with the compacting actor as its
 * parent, so an inspector shows it, and its telemetry reaches the loop's listeners as
 * `ChildLoopEmitted` events of the run being compacted. Aborting the summary aborts the child's
 * run; the child loop is closed when the summary ends either way.
 *
 * @example
 * ```ts
 * import { agentSummarizer, createCompactor, tokenBudgetTrigger } from 'loopkeeper';
 * import { ScriptedModel } from 'loopkeeper/testing';
 *
 * const compactor = createCompactor({
 *   trigger: tokenBudgetTrigger({ maxTokens: 32_000 }),
 *   backend: agentSummarizer({
 *     model: new ScriptedModel({ turns: [{ text: '## Goal\nShip.' }] }),
 *   }),
 * });
 * ```
 */
export function agentSummarizer(options: AgentSummarizerOptions): CompactionBackend {
  const {
    model,
    tools = [],
    maxInputTokens = DEFAULT_SUMMARY_INPUT_TOKENS,
    maxSteps = 8,
    toolTimeoutMs,
    encoding = 'o200k_base',
    inspect,
    onTelemetry,
  } = options;
  validate(options, maxInputTokens, maxSteps);
  createToolRegistry(tools);
  const instructions =
    options.instructions ?? DEFAULT_SUMMARY_PROMPT + (tools.length > 0 ? TOOL_NOTE : '');
  const name = options.name ?? `agent:${model.name}`;
  let counter: Promise<TokenCounter> | undefined =
    options.tokens === undefined ? undefined : Promise.resolve(options.tokens);

  async function summarize({
    transcript,
    previousSummary,
    signal,
    loop,
  }: SummaryRequest): Promise<SummaryResult> {
    if (signal.aborted) throw new AbortedError('The agent summary was aborted before it started');
    counter ??= createTokenCounter({ encoding });
    const tokens = await counter;
    const agent = createAgentLoopLogic({
      model,
      tools,
      instructions,
      store: new MemorySessionStore(),
      maxStepsPerRun: maxSteps,
      tokens,
      ...(toolTimeoutMs === undefined ? {} : { toolTimeoutMs }),
    });
    const child = new AgentLoopActor(
      agent,
      loop !== undefined ? { parent: loop.actor } : inspect === undefined ? {} : { inspect },
    );
    const telemetry = child.on('*', (event) => {
      onTelemetry?.(event);
      loop?.emit({
        type: 'ChildLoopEmitted',
        sessionId: loop.sessionId,
        runId: loop.runId,
        at: Date.now(),
        source: name,
        event,
      });
    });
    const abort = (): void => child.send({ type: 'abort' });
    signal.addEventListener('abort', abort, { once: true });
    child.start();
    try {
      const rendered = renderSummaryInput(
        previousSummary === undefined ? { transcript } : { transcript, previousSummary },
      );
      const result = await runTurn(child, summaryUserMessage(rendered));
      if (result.outcome !== 'completed') {
        throw new CompactionError(
          `agentSummarizer: the summarizing run ended ${result.outcome}${result.error === null ? '' : `: ${result.error.message}`}`,
          { code: signal.aborted ? 'summary_aborted' : 'summary_failed' },
        );
      }
      return {
        text: validateSummaryText(result.text ?? ''),
        usage: {
          promptTokens: result.usage.promptTokens,
          completionTokens: result.usage.completionTokens,
        },
      };
    } finally {
      signal.removeEventListener('abort', abort);
      telemetry.unsubscribe();
      // A child of the compacting actor cannot be stopped from outside; closing the idle loop
      // ends it the machine's own way, which works for a root child too.
      if (isLoopRunning(child)) child.send({ type: 'close' });
    }
  }

  return { name, maxInputTokens, summarize };
}

function validate(options: AgentSummarizerOptions, maxInputTokens: number, maxSteps: number) {
  const model = options.model as { generate?: unknown } | undefined;
  if (typeof model !== 'object' || model === null || typeof model.generate !== 'function') {
    throw new ConfigError(
      'agentSummarizer: `model` must be a ModelAdapter with a generate() method',
    );
  }
  if (!(Number.isFinite(maxInputTokens) && maxInputTokens > 0)) {
    throw new ConfigError(
      `agentSummarizer: maxInputTokens must be positive, got ${maxInputTokens}`,
    );
  }
  if (!(Number.isInteger(maxSteps) && maxSteps >= 1)) {
    throw new ConfigError(`agentSummarizer: maxSteps must be an integer >= 1, got ${maxSteps}`);
  }
}
