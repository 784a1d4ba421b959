export interface ToolExecutionOptions {
  /** Aborted when the run is aborted or the tool's timeout passes. */
  readonly signal: AbortSignal;
  readonly callId: string;
}

export interface ToolDefinition<Args = Record<string, unknown>> {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly parameters: Readonly<Record<string, unknown>>;
  /** Per-call timeout in milliseconds; the runner's default applies when absent. */
  readonly timeoutMs?: number;
  /** Returns the tool output; non-strings are JSON-encoded. A throw becomes an `isError` result. */
  execute(args: Args, options: ToolExecutionOptions): Promise<unknown> | unknown;
}

/**
 * Any tool, whatever its argument type. `never` makes every `ToolDefinition<Args>` assignable
 * here (the method parameter is checked bivariantly), so lists of differently typed tools work.
 */
export type AnyToolDefinition = ToolDefinition<never>;
