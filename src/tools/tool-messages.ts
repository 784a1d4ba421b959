import { describeThrownText } from '../vocabulary/index.js';

/**
 * The texts a model reads when a tool call could not produce output. Each says what went wrong
 * and what the model can do about it, because the model is the one who has to recover. Each
 * starts with `Error:` so the failure survives a round trip through Chat Completions messages,
 * which have no error flag (see `defaultDetectError`).
 */

export function unknownToolMessage(options: {
  toolName: string;
  availableNames: readonly string[];
}): string {
  const available =
    options.availableNames.length === 0 ? 'none' : options.availableNames.join(', ');
  return `Error: Unknown tool "${options.toolName}". Available tools: ${available}. Call one of these instead.`;
}

export function invalidArgumentsMessage(options: {
  toolName: string;
  problems: readonly string[];
}): string {
  return `Error: Invalid arguments for tool "${options.toolName}": ${options.problems.join('; ')}. Call the tool again with corrected arguments.`;
}

export function toolFailedMessage(options: { toolName: string; error: unknown }): string {
  return `Error: Tool "${options.toolName}" failed: ${describeThrownText(options.error)}`;
}

export function toolTimedOutMessage(options: { toolName: string; timeoutMs: number }): string {
  return `Error: Tool "${options.toolName}" timed out after ${options.timeoutMs} ms and was cancelled. Try again with a smaller request, or another approach.`;
}

export function toolAbortedMessage(options: { toolName: string }): string {
  return `Error: Tool "${options.toolName}" was aborted: the run was cancelled before the tool finished, so there is no output.`;
}
