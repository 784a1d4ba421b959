import type { ModelRequest, ModelUsage } from '../model/types.js';
import type { ReasoningPart } from '../transcript/types.js';

export interface ScriptedToolCall {
  /** Generated (`call_scripted_<n>`) when absent. */
  readonly id?: string;
  readonly name: string;
  /** Given as is when a string (it may be invalid JSON on purpose); objects are JSON-encoded. */
  readonly arguments: string | Readonly<Record<string, unknown>>;
}

/** One answer of the scripted model. */
export interface ScriptedAnswer {
  readonly text?: string;
  readonly reasoning?: string | readonly ReasoningPart[];
  readonly toolCalls?: readonly ScriptedToolCall[];
  /** Defaults to `tool_calls` when there are tool calls, else `stop`. */
  readonly finishReason?: string;
  /** Reported instead of the estimate for this answer. */
  readonly usage?: ModelUsage;
  /** Wait this long first (`Infinity` hangs until aborted); aborting ends the wait at once. */
  readonly delayMs?: number;
}

/** A turn that fails: `error` is thrown as is, so give a `ModelError` to mimic a provider. */
export interface ScriptedFailure {
  readonly error: unknown;
  readonly delayMs?: number;
}

/** A turn computed from the request, for answers that depend on what the model was sent. */
export type ScriptedTurnFunction = (
  request: ModelRequest,
) => ScriptedAnswer | ScriptedFailure | Promise<ScriptedAnswer | ScriptedFailure>;

export type ScriptedTurn = ScriptedAnswer | ScriptedFailure | ScriptedTurnFunction;

export function isScriptedFailure(turn: ScriptedAnswer | ScriptedFailure): turn is ScriptedFailure {
  return 'error' in turn;
}
