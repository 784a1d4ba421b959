import type { TokenCounter } from '../../tokens/types.js';
import type {
  ArtifactLedgerData,
  LedgerCommand,
  LedgerError,
  LedgerFile,
} from './artifact-ledger.js';

export interface RenderArtifactTrailOptions {
  readonly ledger: ArtifactLedgerData;
  /** The most tokens the lines may take together. */
  readonly maxTokens: number;
  readonly tokens: TokenCounter;
}

export interface RenderedTrail {
  /** Files, commands and identifiers as bullet lines, most important first: a cut from the end drops the least. */
  readonly artifacts: readonly string[];
  /** Error lines as bullet lines, most important first (those no later call fixed lead). */
  readonly errors: readonly string[];
  /** Entries that did not fit. */
  readonly omitted: number;
}

interface Entry {
  readonly rank: number;
  readonly line: string;
  /** What the entry names: a path, a command, an error line or an identifier. */
  readonly key: string;
  readonly identifier?: boolean;
  readonly error?: boolean;
}

const identifiersPerLine = 6;

function fileLine(file: LedgerFile): string {
  return `- ${file.path} (${file.actions.join(', ')}; step ${file.lastStep})`;
}

function commandLine(command: LedgerCommand): string {
  const runs = command.runs > 1 ? `, ${command.runs} runs` : '';
  return `- $ ${command.command} → ${command.outcome} (step ${command.lastStep}${runs})`;
}

function errorLine(error: LedgerError): string {
  return `- step ${error.step}${error.resolved ? ', fixed later' : ''}: ${error.line}`;
}

/**
 * Rank: recency first (the step an entry was last seen), use next; an error no later call
 * fixed counts as current, and what the work changed (edited, created) outranks what it read.
 */
function entries(ledger: ArtifactLedgerData): Entry[] {
  const use = (uses: number) => Math.min(uses, 10) / 10;
  const files = ledger.files.map((file) => ({
    rank:
      file.lastStep +
      use(file.uses) +
      (file.actions.includes('edited') || file.actions.includes('created') ? 2 : 0) -
      (file.actions.length === 1 && file.actions[0] === 'mentioned' ? 0.5 : 0),
    line: fileLine(file),
    key: file.path,
  }));
  const commands = ledger.commands.map((command) => ({
    // Below the files of the last few steps: the paths a command names are listed as files, and
    // a command line costs several times a path; a failing one ranks higher.
    rank: command.lastStep + use(command.runs) - (command.outcome === 'failed' ? 1 : 10),
    line: commandLine(command),
    key: command.command,
  }));
  const errors = ledger.errors.map((error) => ({
    // Every error no later call fixed outranks the rest, the newest first.
    rank: (error.resolved ? error.step : ledger.steps + error.step / (ledger.steps + 1)) + 1,
    line: errorLine(error),
    key: error.line,
    error: true,
  }));
  const identifiers = ledger.identifiers.map((identifier) => ({
    rank: identifier.lastStep + use(identifier.uses),
    line: identifier.value,
    key: identifier.value,
    identifier: true,
  }));
  return [...errors, ...files, ...commands, ...identifiers];
}

/**
 * The ledger as summary lines, most important first, as many as fit in `maxTokens`: files,
 * commands and identifiers lead "Files and artifacts", errors lead "Errors seen"; what does not fit stays in the log (the ledger is rebuilt from it).
 *
 * @example
 * ```ts
 * import { ArtifactLedger, renderArtifactTrail } from 'loopkeeper/compaction';
 * import { createTokenCounter } from 'loopkeeper';
 *
 * const ledger = new ArtifactLedger();
 * ledger.append([{ kind: 'user', id: 'u1', content: 'Fix src/app.ts' }]);
 * const trail = renderArtifactTrail({
 *   ledger: ledger.toJSON(),
 *   maxTokens: 200,
 *   tokens: await createTokenCounter(),
 * });
 * console.log(trail.artifacts.join('\n'), trail.errors.join('\n'));
 * ```
 */
export function renderArtifactTrail({
  ledger,
  maxTokens,
  tokens,
}: RenderArtifactTrailOptions): RenderedTrail {
  // A stable sort keeps errors before files before commands before ids at equal rank.
  const ranked = entries(ledger).sort((left, right) => right.rank - left.rank);
  const artifacts: string[] = [];
  const errors: string[] = [];
  let shown = '';
  let group: string[] = [];
  let used = 0;
  let omitted = 0;
  const closeGroup = (): void => {
    if (group.length > 0) artifacts.push(`- ids: ${group.join(', ')}`);
    group = [];
  };
  for (const entry of ranked) {
    // A fact an entry already shown spells out (a path inside a command or URL) takes no room.
    if (shown.includes(entry.key)) continue;
    const size =
      entry.identifier === true
        ? tokens.countText(`${entry.line}, `) + (group.length === 0 ? 3 : 0)
        : tokens.countText(entry.line) + 1;
    if (used + size > maxTokens) {
      omitted += 1;
      continue;
    }
    used += size;
    shown += `\n${entry.line}`;
    if (entry.identifier === true) {
      group.push(entry.line);
      if (group.length >= identifiersPerLine) closeGroup();
    } else if (entry.error === true) {
      errors.push(entry.line);
    } else {
      artifacts.push(entry.line);
    }
  }
  closeGroup();
  return { artifacts, errors, omitted };
}
