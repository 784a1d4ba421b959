import { basename, extname, resolve } from 'node:path';
import { isSameFile } from '../compact/same-file.js';
import { DEFAULT_STRATEGIES, STRATEGY_CATALOG } from '../compact/strategy-catalog.js';
import { defineCommand } from '../define-command.js';
import { encodingOption } from '../encoding-option.js';
import { COMMON_OPTIONS, integerOption, requirePositionals } from '../parse-command-line.js';
import { UsageError } from '../usage-error.js';

const name = 'compact';
const usage =
  'loopkeeper compact <transcript.json> [--strategy NAME ...] [--max-tokens N] [--target-tokens N] [--out FILE] [--force] [--repair] [--json]';

const options = {
  ...COMMON_OPTIONS,
  strategy: { type: 'string', multiple: true },
  'max-tokens': { type: 'string' },
  'target-tokens': { type: 'string' },
  'protect-tokens': { type: 'string' },
  out: { type: 'string' },
  force: { type: 'boolean' },
  repair: { type: 'boolean' },
  json: { type: 'boolean' },
  encoding: { type: 'string' },
} as const;

const help = `Compact an OpenAI-format transcript offline and write the result with a before/after report.

Usage: ${usage}

The transcript is a JSON array of Chat Completions messages, or an object with a "messages"
array (other fields are kept in the output); "-" reads it from standard input. It must be
protocol-valid (every tool call answered by exactly one tool message), or --repair makes it so.

Options:
  --strategy NAME      a strategy to run, in order; repeat it or separate names with commas
                       (default: ${DEFAULT_STRATEGIES.join(', ')})
  --max-tokens N       the budget line the result must fit under (default 8192)
  --target-tokens N    where compaction aims; strategies stop once reached (default 60% of max)
  --protect-tokens N   recent tokens kept verbatim by pruneToolResults and summarizeOlder
                       (default half the target)
  --out FILE           where to write the compacted transcript, replacing a file there; "-"
                       writes it to stdout and the report to stderr (default: <input
                       name>.compacted.json in the current directory, or stdout for "-");
                       never the input file, and written atomically
  --force              replace an existing <input name>.compacted.json (without --out)
  --repair             make an invalid transcript valid first (answer unanswered tool calls
                       with an error result, drop orphan results) and report each repair
  --json               print the report as JSON
  --encoding NAME      token encoding: o200k_base (default) or cl100k_base
  --verbose            show stack traces of errors
  -h, --help           show this help

Strategies:
${Object.entries(STRATEGY_CATALOG)
  .map(([strategy, entry]) => `  ${strategy.padEnd(24)} ${entry.description}`)
  .join('\n')}

Summaries use the extractive summarizer: offline, no model and no API key.
Exit codes: 0 written and under --max-tokens, 1 the file is unreadable, not a valid transcript,
the output exists, or the result is still over --max-tokens (then it is written only where no
file exists: a failed run never replaces one), 2 bad arguments.`;

export const compactCommand = defineCommand({
  name,
  summary: 'compact an OpenAI-format transcript file offline',
  usage,
  help,
  options,
  async execute({ values, positionals }, context) {
    const [input] = requirePositionals({
      command: name,
      positionals,
      names: ['transcript.json'],
    }) as [string];
    const strategies = parseStrategies(values.strategy ?? [...DEFAULT_STRATEGIES]);
    const maxTokens = integerOption({
      command: name,
      name: 'max-tokens',
      value: values['max-tokens'],
      fallback: 8192,
    });
    const targetTokens = integerOption({
      command: name,
      name: 'target-tokens',
      value: values['target-tokens'],
      fallback: Math.floor(maxTokens * 0.6),
    });
    if (targetTokens > maxTokens) {
      throw new UsageError(
        `--target-tokens (${targetTokens}) must not exceed --max-tokens (${maxTokens})`,
        { command: name },
      );
    }
    const protectTokens = integerOption({
      command: name,
      name: 'protect-tokens',
      value: values['protect-tokens'],
      fallback: Math.floor(targetTokens / 2),
      minimum: 0,
    });
    const encoding = encodingOption({ command: name, value: values.encoding });
    const fromStdin = input === '-';
    const inputPath = fromStdin ? '-' : resolve(context.cwd, input);
    const toStdout = values.out === '-' || (fromStdin && values.out === undefined);
    const outputPath = toStdout
      ? '-'
      : resolve(
          context.cwd,
          values.out ?? `${basename(inputPath, extname(inputPath))}.compacted.json`,
        );

    if (!toStdout && !fromStdin && isSameFile(inputPath, outputPath)) {
      throw new UsageError(
        `--out ${values.out ?? outputPath} is the input file; compact never overwrites its input (the result is lossy): choose another --out`,
        { command: name },
      );
    }

    // Loaded after parsing, so --help and usage errors answer without loading the tokenizer.
    const { executeCompact } = await import('../compact/execute-compact.js');
    return executeCompact(
      {
        input: inputPath,
        output: outputPath,
        strategies,
        maxTokens,
        targetTokens,
        protectTokens,
        encoding,
        json: values.json === true,
        // A name the user gave is theirs to replace; the default name is not, without --force.
        overwrite: values.out !== undefined || values.force === true,
        repair: values.repair === true,
      },
      context,
    );
  },
});

function parseStrategies(values: readonly string[]): string[] {
  const names = values
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
  if (names.length === 0)
    throw new UsageError('--strategy needs at least one name', { command: name });
  for (const strategy of names) {
    if (!Object.hasOwn(STRATEGY_CATALOG, strategy)) {
      throw new UsageError(
        `unknown strategy "${strategy}" (known: ${Object.keys(STRATEGY_CATALOG).join(', ')})`,
        { command: name },
      );
    }
  }
  return names;
}
