import type { Item, Repair } from '../../transcript/types.js';
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
  /** What `--repair` changed in the input; empty without it. */
  readonly repairs: readonly Repair[];
  /** Whether the result was written (a failed run never replaces an existing file). */
  readonly written: boolean;
}

function countKinds(items: readonly Item[]): Record<Item['kind'], number> {
  const counts: Record<Item['kind'], number> = { user: 0, assistant: 0, toolResult: 0, context: 0 };
  for (const item of items) counts[item.kind] += 1;
  return counts;
}

export function compactReportJson({
  facts,
  result,
  messagesBefore,
  messagesAfter,
  repairs,
  written,
}: ReportInput) {
  const { input, output, strategies, maxTokens, targetTokens, protectTokens, encoding } = facts;
  return {
    input,
    output,
    strategies,
    maxTokens,
    targetTokens,
    protectTokens,
    encoding,
    written,
    repairs,
    instructionTokens: result.instructionTokens,
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
  repairs,
  written,
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
  const output = facts.output === '-' ? 'stdout' : facts.output;
  return [
    `Compacted ${facts.input === '-' ? 'standard input' : facts.input}`,
    `Budget: max ${formatCount(facts.maxTokens)} tokens, target ${formatCount(facts.targetTokens)}, protected tail ${formatCount(facts.protectTokens)} (${facts.encoding})`,
    ...(repairs.length === 0
      ? []
      : [
          '',
          `Repaired the input (--repair), ${repairs.length === 1 ? '1 change' : `${repairs.length} changes`}:`,
          ...repairs.map((repair) => `  message ${repair.index + 1}: ${repair.message}`),
        ]),
    '',
    counts,
    '',
    steps,
    ...(result.instructionTokens > 0
      ? [
          `Token counts are of the whole transcript, its ${formatCount(result.instructionTokens)}-token system prompt included (kept as it is).`,
        ]
      : []),
    '',
    verdict({ facts, result }),
    written
      ? `Wrote ${messagesAfter} messages to ${output}`
      : `Did not write ${output}: it exists, and a result over --max-tokens never replaces a file`,
  ].join('\n');
}

function verdict({ facts, result }: Pick<ReportInput, 'facts' | 'result'>): string {
  if (result.problems.length > 0) {
    return `The result is NOT protocol-valid (${result.problems.length} problems): this is a bug, please report it.`;
  }
  const after = formatCount(result.tokensAfter);
  const target = formatCount(facts.targetTokens);
  if (result.tokensAfter <= facts.targetTokens) {
    return `The result is protocol-valid: ${after} tokens, at or below the target (${target}).`;
  }
  if (result.tokensAfter <= facts.maxTokens) {
    return `The result is protocol-valid: ${after} tokens, under --max-tokens (${formatCount(facts.maxTokens)}) but above the target (${target}).`;
  }
  return `The result is protocol-valid but ${formatCount(result.tokensAfter - facts.maxTokens)} tokens over --max-tokens (${formatCount(facts.maxTokens)}).`;
}
