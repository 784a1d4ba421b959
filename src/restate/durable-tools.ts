import { describeThrownText } from '../errors/describe-thrown.js';
import { DurableStepError } from '../errors/durable-step-error.js';
import { isLoopkeeperErrorCode } from '../errors/error-codes.js';
import type { AnyToolDefinition, ToolExecutionOptions } from '../tools/types.js';
import type { DurableSteps, StepOutcome } from './durable-steps.js';
import { describeBytes } from './limits.js';

/** What a tool served by the Restate object receives besides its arguments. */
export interface DurableToolExecutionOptions extends ToolExecutionOptions {
  /**
   * The same on every attempt of this call (`<sessionId>/<callId>`). A call interrupted by a
   * crash runs again: pass this key to the systems the tool changes, so they apply it once.
   */
  readonly idempotencyKey: string;
}

/**
 * Wraps each tool so a call is one journaled step: a retried invocation gets the recorded
 * output (or the recorded failure) back, and a tool whose step was recorded is not run again.
 * An output over `maxOutputBytes` is never journaled: the step records a `tool_output_too_large`
 * failure instead, which the model sees as an `isError` result.
 */
export function durableTools({
  tools,
  steps,
  sessionId,
  maxOutputBytes,
}: {
  readonly tools: readonly AnyToolDefinition[];
  readonly steps: DurableSteps;
  readonly sessionId: string;
  readonly maxOutputBytes: number;
}): AnyToolDefinition[] {
  return tools.map((tool): AnyToolDefinition => {
    // Called with the extended options: a tool written for this entry reads the key from them.
    const execute = tool.execute as (
      args: unknown,
      options: DurableToolExecutionOptions,
    ) => Promise<unknown> | unknown;
    return {
      ...tool,
      async execute(args: never, options: ToolExecutionOptions): Promise<unknown> {
        const idempotencyKey = `${sessionId}/${options.callId}`;
        const outcome = await steps.attempt(`tool ${options.callId}`, () =>
          executeOnce({
            run: () => execute(args, { ...options, idempotencyKey }),
            signal: options.signal,
            name: tool.name,
            maxOutputBytes,
          }),
        );
        if (outcome === undefined) throw new DurableStepError('The run was aborted.');
        if (outcome.ok) return outcome.value;
        const { code } = outcome.error;
        throw new DurableStepError(outcome.error.message, {
          code: isLoopkeeperErrorCode(code) ? code : 'durable_step',
        });
      },
    };
  });
}

async function executeOnce({
  run,
  signal,
  name,
  maxOutputBytes,
}: {
  readonly run: () => unknown;
  readonly signal: AbortSignal;
  readonly name: string;
  readonly maxOutputBytes: number;
}): Promise<StepOutcome<unknown>> {
  try {
    // A tool that ignores its signal must not keep the step (and the invocation) open.
    const output = await Promise.race([Promise.resolve().then(run), aborted(signal)]);
    const json = JSON.stringify(output ?? null);
    const bytes = Buffer.byteLength(json, 'utf8');
    if (bytes > maxOutputBytes) {
      // Journaling it would pass Restate's message limit or its per-invocation memory: the
      // step would be retried, and the tool run again, forever.
      const message = `Tool ${name} returned ${describeBytes(bytes)}, over the ${describeBytes(maxOutputBytes)} limit of one journal entry (maxEntryBytes); the output was dropped. Ask for a smaller part of it.`;
      return { ok: false, error: { name: 'ToolError', code: 'tool_output_too_large', message } };
    }
    return { ok: true, value: JSON.parse(json) as unknown };
  } catch (error) {
    return {
      ok: false,
      error: { name: 'DurableStepError', code: 'tool_failed', message: describeThrownText(error) },
    };
  }
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(new Error('the call was cancelled (aborted or timed out)'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}
