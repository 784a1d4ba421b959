/** What `fromChatMessages` knows about a tool message when deciding whether it reports a failure. */
export interface DetectErrorInput {
  readonly content: string;
  readonly toolName: string;
  readonly callId: string;
}

/**
 * Chat Completions tool messages have no error flag, so `isError` has to be read from the
 * content. By default a result is an error when its content starts with `Error:` (the
 * convention of the tau-bench transcripts, and of the result `repairTranscript` synthesizes);
 * pass `detectError` to `fromChatMessages` for other conventions.
 *
 * @example
 * ```ts
 * import { defaultDetectError } from 'loopkeeper/transcript';
 * import { fromChatMessages } from 'loopkeeper';
 *
 * // Decide per tool message whether it was a failure; fall back to the default heuristic.
 * const items = fromChatMessages([], {
 *   detectError: (input) => (input.toolName === 'grep' ? false : defaultDetectError(input)),
 * });
 * ```
 */
export function defaultDetectError({ content }: DetectErrorInput): boolean {
  return content.startsWith('Error:');
}
