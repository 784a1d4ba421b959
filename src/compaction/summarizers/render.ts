import type { Item, UserItem } from '../../transcript/types.js';
import { isSummaryItem } from '../summary.js';

export interface RenderSummaryInputOptions {
  readonly transcript: readonly Item[];
  readonly previousSummary?: string;
}

function quote(text: string): string {
  // Every data line starts with "> ", so no text inside can close the block it sits in.
  return text
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
}

function userText(item: UserItem): string {
  if (typeof item.content === 'string') return item.content;
  return item.content
    .map((part) =>
      part.type === 'text'
        ? part.text
        : // A data URL can be megabytes of base64 that says nothing to a summarizer.
          `[image${part.url.startsWith('data:') ? '' : `: ${part.url}`}]`,
    )
    .join('\n');
}

/** One item as labelled, quoted lines. */
export function renderItemForSummary(item: Item, position: number): string {
  const label = `[${position}]`;
  switch (item.kind) {
    case 'user':
      return `${label} user said:\n${quote(userText(item))}`;
    case 'context':
      return `${label} ${isSummaryItem(item) ? 'earlier summary' : `reference note${item.name ? ` (${item.name})` : ''}`}:\n${quote(item.text)}`;
    case 'toolResult':
      return `${label} result of tool ${item.toolName} (call ${item.callId})${item.isError ? ', FAILED' : ''}:\n${quote(item.content)}`;
    case 'assistant': {
      const blocks: string[] = [];
      for (const part of item.reasoning ?? []) {
        blocks.push(`${label} assistant reasoning:\n${quote(part.text)}`);
      }
      if (item.text !== undefined && item.text !== '') {
        blocks.push(`${label} assistant said:\n${quote(item.text)}`);
      }
      for (const call of item.toolCalls ?? []) {
        blocks.push(
          `${label} assistant called tool ${call.name} (call ${call.id}) with arguments:\n${quote(call.arguments)}`,
        );
      }
      return blocks.length > 0 ? blocks.join('\n') : `${label} assistant said nothing`;
    }
  }
}

/**
 * The material a summarizer is given, as one block of quoted text: the previous summary, then
 * the conversation. It is rendered as data rather than as chat turns so the summarizing model
 * has no conversation to continue. Chunking measures exactly this text against a backend's
 * `maxInputTokens`.
 *
 * @example
 * ```ts
 * import { renderSummaryInput } from 'loopkeeper/compaction';
 *
 * // What a summarizer model is given: the history quoted as data, never as instructions.
 * const record = renderSummaryInput({
 *   transcript: [{ kind: 'user', id: 'u1', content: 'Rename the package to loopkeeper.' }],
 *   previousSummary: '## Goal\nPublish the library.',
 * });
 * console.log(record);
 * ```
 */
export function renderSummaryInput({
  transcript,
  previousSummary,
}: RenderSummaryInputOptions): string {
  const parts: string[] = [];
  if (previousSummary !== undefined && previousSummary.trim() !== '') {
    parts.push(`<previous_summary>\n${quote(previousSummary.trim())}\n</previous_summary>`);
  }
  const items = transcript.map((item, index) => renderItemForSummary(item, index + 1));
  parts.push(`<conversation_record>\n${items.join('\n')}\n</conversation_record>`);
  return parts.join('\n\n');
}
