import { createTokenCounter } from '../../tokens/create-token-counter.js';
import type { TokenEncoding } from '../../tokens/types.js';
import { toChatMessages } from '../../transcript/to-chat-messages.js';
import { type CommandContext, EXIT_OK } from '../command.js';
import { writeFileAtomic } from '../output/write-file-atomic.js';
import { budgetShortfall } from './budget-shortfall.js';
import {
  type CompactReportFacts,
  compactReportJson,
  renderCompactReport,
} from './compact-report.js';
import { compactTranscript } from './compact-transcript.js';
import { readTranscriptFile } from './read-transcript-file.js';

export interface CompactSettings extends CompactReportFacts {
  readonly encoding: TokenEncoding;
  readonly json: boolean;
}

/**
 * Compacts a transcript file and writes the result in the input's shape; the report goes to
 * stdout, or to stderr when the transcript itself is written to stdout (`--out -`). A result
 * still over --max-tokens is written too, but fails the command (exit 1) with by how much.
 */
export async function executeCompact(
  settings: CompactSettings,
  context: CommandContext,
): Promise<number> {
  const file = await readTranscriptFile({ path: settings.input });
  const tokens = await createTokenCounter({ encoding: settings.encoding });
  const result = await compactTranscript({
    items: file.items,
    strategies: settings.strategies,
    budget: { maxTokens: settings.maxTokens, targetTokens: settings.targetTokens },
    protectTokens: settings.protectTokens,
    tokens,
  });
  const messages = toChatMessages(result.after);
  const written = `${JSON.stringify(file.withMessages(messages), null, 2)}\n`;
  const toStdout = settings.output === '-';
  if (toStdout) context.stdout.write(written);
  else await writeFileAtomic({ path: settings.output, text: written });

  const counts = { messagesBefore: file.messageCount, messagesAfter: messages.length };
  const report = settings.json
    ? JSON.stringify(compactReportJson({ facts: settings, result, ...counts }), null, 2)
    : renderCompactReport({ facts: settings, result, ...counts });
  (toStdout ? context.stderr : context.stdout).write(`${report}\n`);
  if (result.tokensAfter > settings.maxTokens) {
    throw budgetShortfall({
      after: result.after,
      tokensAfter: result.tokensAfter,
      maxTokens: settings.maxTokens,
      strategies: settings.strategies,
      output: settings.output,
      tokens,
    });
  }
  return EXIT_OK;
}
