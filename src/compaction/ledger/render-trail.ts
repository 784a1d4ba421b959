import type { TokenCounter } from '../../tokens/types.js';
import type {
  ArtifactLedgerData,
  FileAction,
  LedgerCommand,
  LedgerError,
  LedgerFile,
} from './artifact-ledger.js';

export interface RenderArtifactTrailOptions {
  readonly ledger: ArtifactLedgerData;
  /** The most tokens the lines may take together. */
  readonly maxTokens: number;
  readonly tokens: TokenCounter;
  /**
   * Text the model reads anyway beside the summary (the items a compaction keeps): a fact it
   * spells out is not listed again. The next compaction renders the trail anew, so a fact
   * comes back once its item is gone.
   */
  readonly visible?: string;
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
  /** What the entry shows: a path, a command line, an error line or an identifier. */
  readonly text: string;
  /** What the entry names: a path, a command, an error line or an identifier. */
  readonly key: string;
  /**
   * The line the entry shares with others of the same group (`- edited: a.py, b.py`), or none
   * when it has a line of its own (a command).
   */
  readonly group?: string;
  readonly error?: boolean;
}

/** How many entries share one line at most, so a cut from the end drops few at a time. */
const pathsPerLine = 8;
const identifiersPerLine = 8;
const errorsPerLine = 6;

/** What a file is listed under: the most telling thing the work did with it. */
const ACTION_ORDER: readonly FileAction[] = ['created', 'edited', 'read', 'used', 'mentioned'];

function principalAction(file: LedgerFile): FileAction {
  return ACTION_ORDER.find((action) => file.actions.includes(action)) ?? 'mentioned';
}

function commandLine(command: LedgerCommand): string {
  const runs = command.runs > 1 ? `, ${command.runs} runs` : '';
  return `- $ ${command.command} → ${command.outcome} (step ${command.lastStep}${runs})`;
}

/**
 * Errors no later call fixed are listed by step (where the work stands); the fixed ones share
 * lines, newest first, since their step says little once a later call succeeded.
 */
function errorGroup(error: LedgerError): string {
  return error.resolved ? 'fixed later' : `step ${error.step}`;
}

/** An error line too short to say anything (a bare `ERRORS:` heading of a linter report). */
const minErrorLength = 8;

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
    text: file.path,
    key: file.path,
    group: principalAction(file),
  }));
  const commands = ledger.commands.map((command) => ({
    // After the facts: the paths and ids a command names are listed on their own, its failure
    // among the errors, and a command line costs several times a path. A failing one ranks
    // with the files of its step; the others take the room the facts leave, newest first.
    rank:
      command.lastStep + use(command.runs) - (command.outcome === 'failed' ? 1 : ledger.steps + 1),
    text: commandLine(command),
    key: command.command,
  }));
  const errors = ledger.errors
    .filter((error) => error.line.trim().length >= minErrorLength)
    .map((error) => ({
      // Every error no later call fixed outranks the rest, the newest first.
      rank: (error.resolved ? error.step : ledger.steps + error.step / (ledger.steps + 1)) + 1,
      text: error.line,
      key: error.line,
      group: errorGroup(error),
      error: true,
    }));
  const identifiers = ledger.identifiers.map((identifier) => ({
    rank: identifier.lastStep + use(identifier.uses),
    text: identifier.value,
    key: identifier.value,
    group: 'ids',
  }));
  return [...errors, ...files, ...commands, ...identifiers];
}

/** Lines being filled, in the order their first entry was placed. */
class GroupedLines {
  readonly #lines: { group: string | undefined; entries: string[]; limit: number }[] = [];
  readonly #open = new Map<string, { entries: string[]; limit: number }>();

  /** The tokens `text` adds: its own and a separator, or a new line's frame. */
  cost(entry: Entry, tokens: TokenCounter): number {
    if (entry.group === undefined) return tokens.countText(entry.text) + 1;
    const open = this.#open.get(entry.group);
    const separator = entry.error === true ? ' | ' : ', ';
    return open === undefined || open.entries.length >= open.limit
      ? tokens.countText(`- ${entry.group}: ${entry.text}`) + 1
      : tokens.countText(`${separator}${entry.text}`);
  }

  add(entry: Entry, limit: number): void {
    if (entry.group === undefined) {
      this.#lines.push({ group: undefined, entries: [entry.text], limit: 1 });
      return;
    }
    const open = this.#open.get(entry.group);
    if (open !== undefined && open.entries.length < open.limit) {
      open.entries.push(entry.text);
      return;
    }
    const line = { group: entry.group, entries: [entry.text], limit };
    this.#lines.push(line);
    this.#open.set(entry.group, line);
  }

  render(separator: string): string[] {
    return this.#lines.map(({ group, entries }) =>
      group === undefined ? (entries[0] ?? '') : `- ${group}: ${entries.join(separator)}`,
    );
  }
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
  visible = '',
}: RenderArtifactTrailOptions): RenderedTrail {
  // A stable sort keeps errors before files before commands before ids at equal rank.
  const ranked = entries(ledger).sort((left, right) => right.rank - left.rank);
  const artifacts = new GroupedLines();
  const errors = new GroupedLines();
  let shown = '';
  let used = 0;
  let omitted = 0;
  for (const entry of ranked) {
    // A fact an entry already shown spells out (a path inside a command or URL) takes no room.
    if (shown.includes(entry.key) || visible.includes(entry.key)) continue;
    const lines = entry.error === true ? errors : artifacts;
    const size = lines.cost(entry, tokens);
    if (used + size > maxTokens) {
      omitted += 1;
      continue;
    }
    used += size;
    shown += `\n${entry.text}`;
    const limit =
      entry.error === true
        ? errorsPerLine
        : entry.group === 'ids'
          ? identifiersPerLine
          : pathsPerLine;
    lines.add(entry, limit);
  }
  return { artifacts: artifacts.render(', '), errors: errors.render(' | '), omitted };
}
