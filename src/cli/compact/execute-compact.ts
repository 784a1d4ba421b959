import { existsSync } from 'node:fs';
import { createTokenCounter } from '../../tokens/create-token-counter.js';
import type { TokenEncoding } from '../../tokens/types.js';
import { toChatMessages } from '../../transcript/to-chat-messages.js';
import { type CommandContext, EXIT_OK } from '../command.js';
import { CommandError } from '../command-error.js';
import { writeFileAtomic } from '../output/write-file-atomic.js';
import { budgetShortfall, STRONG_STRATEGIES, type StrategyTrial } from './budget-shortfall.js';
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
  /** Whether an existing output file may be replaced: `--out` names it, or `--force`. */
  readonly overwrite: boolean;
  /** Make a protocol-invalid input valid with `repairTranscript` instead of refusing it. */
  readonly repair: boolean;
}

/**
 * Compacts a transcript file and writes the result in the input's shape; the report goes to
 * stdout, or to stderr when the transcript itself is written to stdout (`--out -`). A result
 * still over --max-tokens fails the command (exit 1) with by how much and what helps; it is
 * written only where no file exists yet, so a failed run never replaces one.
 */
export async function executeCompact(
  settings: CompactSettings,
  context: CommandContext,
): Promise<number> {
  const toStdout = settings.output === '-';
  // Checked first, so a run that could not write its result does not compact for nothing.
  if (!toStdout && !settings.overwrite && existsSync(settings.output)) throw outputExists(settings);
  const file = await readTranscriptFile({
    path: settings.input,
    repair: settings.repair,
    stdin: context.stdin,
  });
  const tokens = await createTokenCounter({ encoding: settings.encoding });
  const compact = (strategies: readonly string[]) =>
    compactTranscript({
      items: file.items,
      strategies,
      budget: { maxTokens: settings.maxTokens, targetTokens: settings.targetTokens },
      protectTokens: settings.protectTokens,
      tokens,
    });
  const result = await compact(settings.strategies);
  const fits = result.tokensAfter <= settings.maxTokens;
  const messages = toChatMessages(result.after);
  const text = `${JSON.stringify(file.withMessages(messages), null, 2)}\n`;
  let written = true;
  if (toStdout) context.stdout.write(text);
  else {
    try {
      await writeFileAtomic({ path: settings.output, text, overwrite: settings.overwrite && fits });
    } catch (error) {
      if (!CommandError.isInstance(error) || error.code !== 'output_exists') throw error;
      if (fits) throw outputExists(settings);
      written = false;
    }
  }

  const facts = {
    facts: settings,
    result,
    messagesBefore: file.messageCount,
    messagesAfter: messages.length,
    repairs: file.repairs,
    written,
  };
  const report = settings.json
    ? JSON.stringify(compactReportJson(facts), null, 2)
    : renderCompactReport(facts);
  (toStdout ? context.stderr : context.stdout).write(`${report}\n`);
  if (!fits) {
    // Each stronger strategy after the chosen ones, then on its own (a summary the chosen
    // ones wrote can be what keeps the result over the line).
    const candidates = [
      ...STRONG_STRATEGIES.filter((name) => !settings.strategies.includes(name)).map((name) => [
        ...settings.strategies,
        name,
      ]),
      ...STRONG_STRATEGIES.map((name) => [name]),
    ].filter((strategies) => strategies.join(',') !== settings.strategies.join(','));
    const trials: StrategyTrial[] = [];
    for (const strategies of candidates) {
      trials.push({ strategies, tokensAfter: (await compact(strategies)).tokensAfter });
    }
    throw budgetShortfall({
      tokensAfter: result.tokensAfter,
      maxTokens: settings.maxTokens,
      strategies: settings.strategies,
      trials,
      written: !written ? undefined : toStdout ? 'stdout' : settings.output,
    });
  }
  return EXIT_OK;
}

function outputExists(settings: CompactSettings): CommandError {
  return new CommandError(
    `${settings.output} already exists; pass --force to replace it, or --out FILE to write elsewhere`,
    { code: 'output_exists' },
  );
}
