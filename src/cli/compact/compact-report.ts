import type { Item } from '../../transcript/types.js';
import { formatCount } from '../output/format.js';
import { renderTable } from '../output/table.js';
import type { CompactTranscriptResult } from './compact-transcript.js';

/** What the command line asked for, repeated in the report. */
export interface CompactReportFacts {
  readonly input: string;
  /** A file path, or `-` for stdout. */
  readonly output: string;
  readonly strategies: readonly string[];
  readonly maxTokens: number;
  readonly targetTokens: number;
  readonly protectTokens: number;
  readonly encoding: string;
}

interface ReportInput {
  readonly facts: CompactReportFacts;
  readonly result: CompactTranscriptResult;
  readonly messagesBefore: number;
  readonly messagesAfter: number;
}

function countKinds(items: readonly Item[]): Record<Item['kind'], number> {
  const counts: Record<Item['kind'], number> = { user: 0, assistant: 0, toolResult: 0, context: 0 };
  for (const item of items) counts[item.kind] += 1;
  return counts;
}

export function compactReportJson({ facts, result, messagesBefore, messagesAfter }: ReportInput) {
  const { input, output, strategies, maxTokens, targetTokens, protectTokens, encoding } = facts;
  return {
    input,
    output,
    strategies,
    maxTokens,
    targetTokens,
    protectTokens,
    encoding,
    before: { messages: messagesBefore, tokens: result.tokensBefore, ...countKinds(result.before) },
    after: { messages: messagesAfter, tokens: result.tokensAfter, ...countKinds(result.after) },
    fits: result.tokensAfter <= maxTokens,
    reachedTarget: result.tokensAfter <= targetTokens,
    applied: result.applied,
    steps: result.steps.map(({ metadata: _metadata, ...step }) => step),
    valid: result.problems.length === 0,
    problems: result.problems,
  };
}

export function renderCompactReport({
  facts,
  result,
  messagesBefore,
  messagesAfter,
}: ReportInput): string {
  const before = countKinds(result.before);
  const after = countKinds(result.after);
  const counts = renderTable({
    columns: [
      { header: '' },
      { header: 'before', align: 'right' },
      { header: 'after', align: 'right' },
    ],
    rows: [
      ['messages', formatCount(messagesBefore), formatCount(messagesAfter)],
      ['tokens', formatCount(result.tokensBefore), formatCount(result.tokensAfter)],
      ['user', String(before.user), String(after.user)],
      ['assistant', String(before.assistant), String(after.assistant)],
      ['tool', String(before.toolResult), String(after.toolResult)],
      ['system (context)', String(before.context), String(after.context)],
    ],
  });
  const steps = renderTable({
    columns: [
      { header: 'strategy' },
      { header: 'before', align: 'right' },
      { header: 'after', align: 'right' },
      { header: 'note' },
    ],
    rows: result.steps.map((step) => [
      step.name,
      formatCount(step.tokensBefore),
      formatCount(step.tokensAfter),
      step.skipped ?? '',
    ]),
  });
  return [
    `Compacted ${facts.input}`,
    `Budget: max ${formatCount(facts.maxTokens)} tokens, target ${formatCount(facts.targetTokens)}, protected tail ${formatCount(facts.protectTokens)} (${facts.encoding})`,
    '',
    counts,
    '',
    steps,
    '',
    verdict({ facts, result }),
    `Wrote ${messagesAfter} messages to ${facts.output === '-' ? 'stdout' : facts.output}`,
  ].join('\n');
}

function verdict({ facts, result }: Pick<ReportInput, 'facts' | 'result'>): string {
  if (result.problems.length > 0) {
    return `The result is NOT protocol-valid (${result.problems.length} problems): this is a bug, please report it.`;
  }
  if (result.tokensAfter <= facts.targetTokens) {
    return 'The result is protocol-valid and at or under the target.';
  }
  if (result.tokensAfter <= facts.maxTokens) {
    return 'The result is protocol-valid and under the budget, but above the target.';
  }
  return `The result is protocol-valid but ${formatCount(result.tokensAfter - facts.maxTokens)} tokens over --max-tokens (${formatCount(facts.maxTokens)}).`;
}
