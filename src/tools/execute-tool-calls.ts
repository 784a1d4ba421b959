import { ConfigError } from '../errors/config-error.js';
import { createItemId } from '../transcript/ids.js';
import type { ToolCall, ToolResultItem } from '../transcript/types.js';
import {
  invalidArgumentsMessage,
  toolAbortedMessage,
  toolFailedMessage,
  toolTimedOutMessage,
  unknownToolMessage,
} from './tool-messages.js';
import { encodeToolOutput } from './tool-output.js';
import { createToolRegistry, type ToolRegistry } from './tool-registry.js';
import type { AnyToolDefinition, ToolExecutionOptions } from './types.js';
import { findArgumentProblems, parseToolArguments } from './validate-arguments.js';
import { isValidTimeout } from './validate-tool-definition.js';

export interface ToolCallStartedInfo {
  readonly callId: string;
  readonly toolName: string;
}

export interface ToolCallProgressInfo {
  readonly callId: string;
  readonly toolName: string;
  /** What the tool gave `reportProgress`. */
  readonly data: unknown;
}

export interface ToolCallFinishedInfo {
  readonly callId: string;
  readonly toolName: string;
  readonly isError: boolean;
  readonly durationMs: number;
  /** Length of the result's content in characters. */
  readonly outputLength: number;
}

export interface ExecuteToolCallsOptions {
  /** The loop's tools, as a list (validated here) or an already built registry. */
  readonly tools: readonly AnyToolDefinition[] | ToolRegistry;
  readonly calls: readonly ToolCall[];
  /** The run's signal: aborting it resolves every unfinished call with an "aborted" result. */
  readonly signal?: AbortSignal;
  /** Timeout for tools that do not set their own `timeoutMs`. */
  readonly defaultTimeoutMs?: number;
  readonly onCallStarted?: (info: ToolCallStartedInfo) => void;
  /** What a running tool reports through `reportProgress`, until its call settles. */
  readonly onCallProgress?: (info: ToolCallProgressInfo) => void;
  readonly onCallFinished?: (info: ToolCallFinishedInfo) => void;
  /**
   * Each call's result as soon as that call settles (completion order), after its
   * `onCallFinished`: a caller can record a finished call before slower ones are done.
   */
  readonly onResult?: (result: ToolResultItem) => void;
  /** Receives what a throwing `onCallStarted` / `onCallFinished` threw; execution goes on. */
  readonly onCallbackError?: (error: unknown) => void;
  /** Id for each result item. */
  readonly createId?: () => string;
  /**
   * The most calls that run at once; the rest wait for a free slot, in call order. Default
   * `DEFAULT_MAX_PARALLEL_TOOLS` (16): a model can ask for thousands of calls in one answer.
   */
  readonly maxConcurrency?: number;
}

/** Tool calls of one answer that run at once unless a loop says otherwise (`maxParallelTools`). */
export const DEFAULT_MAX_PARALLEL_TOOLS = 16;

interface CallOutcome {
  readonly content: string;
  readonly isError: boolean;
}

/**
 * Runs a batch of tool calls concurrently and returns one result per call, in call order.
 * Never rejects because of a call: unknown tools, bad arguments, throws, timeouts and aborts all
 * become `isError` results the model can read, so the transcript stays protocol-valid. Every call
 * gets exactly one `onCallStarted` followed by one `onCallFinished`. Rejects only on bad options
 * (`ConfigError`, `ToolError`).
 *
 * @example
 * ```ts
 * import { executeToolCalls } from 'loopkeeper/tools';
 * import { defineTool } from 'loopkeeper';
 *
 * const now = defineTool({
 *   name: 'now',
 *   description: 'The time.',
 *   parameters: { type: 'object', properties: {} },
 *   execute: async () => new Date().toISOString(),
 * });
 * const results = await executeToolCalls({
 *   tools: [now],
 *   calls: [
 *     { id: 'c1', name: 'now', arguments: '{}' },
 *     { id: 'c2', name: 'missing', arguments: '{}' },
 *   ],
 *   defaultTimeoutMs: 5_000,
 * });
 * console.log(results.map((result) => result.isError)); // [false, true]: unknown tool
 * ```
 */
export async function executeToolCalls({
  tools,
  calls,
  signal = new AbortController().signal,
  defaultTimeoutMs = 60_000,
  onCallStarted,
  onCallProgress,
  onCallFinished,
  onResult,
  onCallbackError = (error) => console.error('loopkeeper: a tool call callback threw', error),
  createId = () => createItemId(),
  maxConcurrency = DEFAULT_MAX_PARALLEL_TOOLS,
}: ExecuteToolCallsOptions): Promise<ToolResultItem[]> {
  const registry = Array.isArray(tools) ? createToolRegistry(tools) : (tools as ToolRegistry);
  if (!isValidTimeout(defaultTimeoutMs)) {
    throw new ConfigError(
      `defaultTimeoutMs must be a whole number of milliseconds from 1 to 2147483647 (got ${defaultTimeoutMs}).`,
      { code: 'config_invalid_timeout' },
    );
  }
  if (!(Number.isSafeInteger(maxConcurrency) && maxConcurrency >= 1)) {
    throw new ConfigError(
      `maxConcurrency must be a whole number of 1 or more (got ${maxConcurrency}).`,
      { code: 'config' },
    );
  }
  const notify = <Info>(callback: ((info: Info) => void) | undefined, info: Info): void => {
    try {
      callback?.(info);
    } catch (error) {
      onCallbackError(error);
    }
  };
  // Ids are made in call order, not completion order, so sequential id schemes follow the transcript.
  const ids = calls.map(() => createId());
  const runCall = async (call: ToolCall, index: number): Promise<ToolResultItem> => {
    const identity = { callId: call.id, toolName: call.name };
    const startedAt = performance.now();
    notify(onCallStarted, identity);
    const outcome = await settleCall({
      registry,
      call,
      signal,
      defaultTimeoutMs,
      onProgress: (data) => notify(onCallProgress, { ...identity, data }),
    });
    notify(onCallFinished, {
      ...identity,
      isError: outcome.isError,
      durationMs: performance.now() - startedAt,
      outputLength: outcome.content.length,
    });
    const result: ToolResultItem = {
      kind: 'toolResult',
      id: ids[index] as string,
      callId: call.id,
      toolName: call.name,
      content: outcome.content,
      isError: outcome.isError,
    };
    notify(onResult, result);
    return result;
  };
  return inSlots({ calls, slots: maxConcurrency, run: runCall });
}

/**
 * Synthetic "aborted" results for calls that will never run, so the transcript stays valid.
 *
 * @example
 * ```ts
 * import { createAbortedToolResults } from 'loopkeeper/tools';
 *
 * // Answer calls that will never run, so the transcript stays protocol-valid.
 * const results = createAbortedToolResults({
 *   calls: [{ id: 'c1', name: 'deploy', arguments: '{}' }],
 * });
 * console.log(results[0]?.isError); // true
 * ```
 */
export function createAbortedToolResults({
  calls,
  createId = () => createItemId(),
}: {
  calls: readonly ToolCall[];
  createId?: () => string;
}): ToolResultItem[] {
  return calls.map((call) => ({
    kind: 'toolResult',
    id: createId(),
    callId: call.id,
    toolName: call.name,
    content: toolAbortedMessage({ toolName: call.name }),
    isError: true,
  }));
}

function settleCall(options: {
  registry: ToolRegistry;
  call: ToolCall;
  signal: AbortSignal;
  defaultTimeoutMs: number;
  onProgress: (data: unknown) => void;
}): Promise<CallOutcome> {
  const { registry, call, signal, defaultTimeoutMs, onProgress } = options;
  const toolName = call.name;
  if (signal.aborted) {
    return Promise.resolve(failure(toolAbortedMessage({ toolName })));
  }
  const tool = registry.get(toolName);
  if (tool === undefined) {
    return Promise.resolve(
      failure(unknownToolMessage({ toolName, availableNames: registry.names })),
    );
  }
  const parsed = parseToolArguments({ toolName, argumentsText: call.arguments });
  if (!parsed.ok) {
    return Promise.resolve(failure(parsed.message));
  }
  const problems = findArgumentProblems({ parameters: tool.parameters, args: parsed.value });
  if (problems.length > 0) {
    return Promise.resolve(failure(invalidArgumentsMessage({ toolName, problems })));
  }
  return runWithDeadline({
    tool,
    call,
    args: parsed.value,
    signal,
    timeoutMs: tool.timeoutMs ?? defaultTimeoutMs,
    onProgress,
  });
}

/**
 * Races the tool against its timeout and the run's abort. Whichever comes first decides the
 * result; a tool that ignores its signal is left running and its late answer is discarded, so
 * one stuck tool can never hold up the loop.
 */
function runWithDeadline(options: {
  tool: AnyToolDefinition;
  call: ToolCall;
  args: Record<string, unknown>;
  signal: AbortSignal;
  timeoutMs: number;
  onProgress: (data: unknown) => void;
}): Promise<CallOutcome> {
  const { tool, call, args, signal, timeoutMs, onProgress } = options;
  const toolName = call.name;
  return new Promise((resolve) => {
    const timeoutController = new AbortController();
    let settled = false;
    const finish = (outcome: CallOutcome): void => {
      if (settled) {
        return;
      }
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onRunAborted);
      resolve(outcome);
    };
    const onRunAborted = (): void => finish(failure(toolAbortedMessage({ toolName })));
    const timer = setTimeout(() => {
      const message = toolTimedOutMessage({ toolName, timeoutMs });
      // Settle first so a tool that rejects as soon as it sees the abort cannot win the race.
      finish(failure(message));
      timeoutController.abort(new DOMException(message, 'TimeoutError'));
    }, timeoutMs);
    signal.addEventListener('abort', onRunAborted, { once: true });

    // Combined when the tool first reads it: `AbortSignal.any` costs more than a quick tool's
    // whole run, and a tool that never looks at its signal does not need one.
    let toolSignal: AbortSignal | undefined;
    const options = {
      get signal(): AbortSignal {
        toolSignal ??= AbortSignal.any([signal, timeoutController.signal]);
        return toolSignal;
      },
      callId: call.id,
      // Once the call has settled its finish is reported: later progress would follow it.
      reportProgress: (data: unknown): void => {
        if (!settled) onProgress(data);
      },
    };
    // `execute` is typed over `never` to accept any tool; the arguments were checked above.
    const execute = tool.execute as (
      args: Record<string, unknown>,
      options: ToolExecutionOptions,
    ) => unknown;
    new Promise<unknown>((resolveOutput) => {
      resolveOutput(execute(args, options));
    }).then(
      (output) => {
        const encoded = encodeToolOutput({ toolName, output });
        finish(
          encoded.ok ? { content: encoded.content, isError: false } : failure(encoded.message),
        );
      },
      (error: unknown) => finish(failure(toolFailedMessage({ toolName, error }))),
    );
  });
}

function failure(content: string): CallOutcome {
  return { content, isError: true };
}

/**
 * Runs `run` over `calls` with at most `slots` at once, starting them in order; the outcomes
 * come back in call order. A call waiting for a slot when the run is aborted starts, sees the
 * aborted signal and settles at once as aborted.
 */
async function inSlots({
  calls,
  slots,
  run,
}: {
  readonly calls: readonly ToolCall[];
  readonly slots: number;
  readonly run: (call: ToolCall, index: number) => Promise<ToolResultItem>;
}): Promise<ToolResultItem[]> {
  const outcomes: ToolResultItem[] = new Array(calls.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < calls.length) {
      const index = next;
      next += 1;
      outcomes[index] = await run(calls[index] as ToolCall, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(slots, calls.length) }, worker));
  return outcomes;
}
