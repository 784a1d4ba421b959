import { DurableStepError } from '../errors/durable-step-error.js';
import { isLoopkeeperErrorCode } from '../errors/error-codes.js';
import type { AnyToolDefinition, ToolExecutionOptions } from '../tools/types.js';
import { describeThrownText } from '../vocabulary/index.js';
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
 * A call cut off by a crash runs again (same `idempotencyKey`) only when its tool is
 * `idempotent`; otherwise the model gets an `isError` result (`tool_interrupted`) saying it may
 * or may not have taken effect, as a resumed run in one process does.
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
        const started = await startStep({ steps, callId: options.callId, tool });
        if (started === undefined) throw new DurableStepError('The run was aborted.');
        const outcome = await steps.attempt(`tool ${options.callId}`, async () =>
          started.firstAttempt
            ? executeOnce({
                run: () => execute(args, { ...options, idempotencyKey }),
                signal: options.signal,
                name: tool.name,
                maxOutputBytes,
              })
            : interrupted(tool.name),
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

/**
 * A journaled step before each call: once it is recorded, for a tool that is not `idempotent`,
 * an attempt that finds it in the journal (a retry after a worker or server crash) while the
 * call's own result is not there knows the call may have run, and does not run it blindly.
 * The SDK resolves a step only after the server stored it, so the mark is durable before the
 * tool starts. An idempotent tool runs again, with the same key.
 */
async function startStep({
  steps,
  callId,
  tool,
}: {
  readonly steps: DurableSteps;
  readonly callId: string;
  readonly tool: AnyToolDefinition;
}): Promise<{ readonly firstAttempt: boolean } | undefined> {
  // Marked for idempotent tools too, so the steps of parallel calls stay in one batch.
  let firstAttempt = false;
  const mark = await steps.attempt(`tool ${callId} started`, async () => {
    firstAttempt = true;
    return { ok: true, value: null };
  });
  if (mark === undefined) return undefined;
  return { firstAttempt: firstAttempt || tool.idempotent === true };
}

function interrupted(name: string): StepOutcome<unknown> {
  const message = `The call of ${name} was started before a crash (of a worker or of the restate-server) and its result was not recorded, so it may or may not have taken effect. ${name} is not idempotent, so it was not run again.`;
  return { ok: false, error: { name: 'ToolError', code: 'tool_interrupted', message } };
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
