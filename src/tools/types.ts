export interface ToolExecutionOptions {
  /** Aborted when the run is aborted or the tool's timeout passes. */
  readonly signal: AbortSignal;
  readonly callId: string;
  /**
   * Tells the host how the call is getting on: `data` becomes a `ToolCallProgress` telemetry
   * event (and a `tool_progress` part of `streamTurn`) with this call's id, as given. Progress is
   * not logged; reports after the call has settled (its timeout or the run's abort) are dropped.
   */
  reportProgress(data: unknown): void;
}

/** What a `needsApproval` function is told besides the call's arguments. */
export interface ToolApprovalContext {
  readonly callId: string;
  readonly toolName: string;
  readonly sessionId: string;
  readonly runId: string;
}

export interface ToolDefinition<Args = Record<string, unknown>> {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly parameters: Readonly<Record<string, unknown>>;
  /** Per-call timeout in milliseconds; the runner's default applies when absent. */
  readonly timeoutMs?: number;
  /**
   * Whether a call waits for a person's decision before it runs: `true`, or a function of the
   * parsed arguments (a throw or a non-boolean answer counts as `true`). The run pauses with
   * outcome `awaiting_approval` until every such call of the step is decided.
   */
  readonly needsApproval?:
    | boolean
    | ((args: Args, context: ToolApprovalContext) => boolean | Promise<boolean>);
  /**
   * Whether running a call twice is harmless. A call that a crash interrupted (started, no
   * result in the log) is run again on resume only when this is true; otherwise the model is
   * told it may or may not have taken effect. Default false.
   */
  readonly idempotent?: boolean;
  /** Returns the tool output; non-strings are JSON-encoded. A throw becomes an `isError` result. */
  execute(args: Args, options: ToolExecutionOptions): Promise<unknown> | unknown;
}

/**
 * Any tool, whatever its argument type. `never` makes every `ToolDefinition<Args>` assignable
 * here (the method parameter is checked bivariantly), so lists of differently typed tools work.
 */
export type AnyToolDefinition = ToolDefinition<never>;
