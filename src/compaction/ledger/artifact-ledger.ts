import type { SessionEvent } from '../../log/events.js';
import type { Item, ToolCall } from '../../transcript/types.js';
import {
  argumentStringsOf,
  commandOfArguments,
  findFilePaths,
  findIdentifiers,
  findUrls,
  looksLikeError,
  type ParsedArguments,
  parseArguments,
} from '../summarizers/extract-patterns.js';
import { clipCodePoints } from './clip-code-points.js';

/** What the work did with a file: `used` when a command named it, `mentioned` when only words did. */
export type FileAction = 'read' | 'edited' | 'created' | 'used' | 'mentioned';

export interface LedgerFile {
  readonly path: string;
  readonly actions: readonly FileAction[];
  /** The last step (model reply) that touched it. */
  readonly lastStep: number;
  readonly uses: number;
}

export interface LedgerCommand {
  readonly command: string;
  readonly tool: string;
  readonly runs: number;
  readonly lastStep: number;
  /** How its latest run ended; `pending` until its result arrives. */
  readonly outcome: 'ok' | 'failed' | 'pending';
}

export interface LedgerError {
  /** The error line as the output showed it (whitespace flattened, long lines clipped). */
  readonly line: string;
  readonly tool: string;
  /** The command or file the failing call worked on, when it named one. */
  readonly subject: string | undefined;
  readonly step: number;
  /** Whether a later call on the same command or file succeeded. */
  readonly resolved: boolean;
}

export interface LedgerIdentifier {
  readonly value: string;
  readonly uses: number;
  readonly lastStep: number;
}

/** The ledger's content as plain data; commands and errors in the order of their latest sighting. */
export interface ArtifactLedgerData {
  /** Model replies seen so far: the clock of `lastStep` and `step`. */
  readonly steps: number;
  readonly files: readonly LedgerFile[];
  readonly commands: readonly LedgerCommand[];
  readonly errors: readonly LedgerError[];
  readonly identifiers: readonly LedgerIdentifier[];
}

interface PendingCall {
  readonly tool: string;
  readonly subject: string | undefined;
  readonly command: string | undefined;
}

interface MutableFile {
  path: string;
  actions: FileAction[];
  lastStep: number;
  uses: number;
}

const maxLineCharacters = 240;
const maxScannedCharacters = 65_536;
const pathKeys = ['path', 'file', 'filename', 'file_path', 'file_name', 'filepath', 'target'];

function actionOf(toolName: string): FileAction {
  if (/create|new_?file|touch/i.test(toolName)) return 'created';
  if (/edit|write|replace|insert|patch|apply|modify|append|update/i.test(toolName)) {
    return 'edited';
  }
  if (/open|read|view|cat|show|goto|scroll|search|find|grep|list|\bls\b/i.test(toolName)) {
    return 'read';
  }
  return 'used';
}

function argumentsRecord(parsed: ParsedArguments): Record<string, unknown> | undefined {
  if (parsed === 'invalid') return undefined;
  const { value } = parsed;
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function targetPath(parsed: ParsedArguments): string | undefined {
  const record = argumentsRecord(parsed);
  for (const key of pathKeys) {
    const value = record?.[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

function userText(item: Item): string {
  if (item.kind !== 'user') return '';
  if (typeof item.content === 'string') return item.content;
  return item.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

function pathsIn(text: string): string[] {
  return [...findUrls(text), ...findFilePaths(text)];
}

/** Error lines of a tool output: lines that read like failures, and a failed result's first line. */
function errorLinesOf(content: string, isError: boolean): string[] {
  // A huge output is scanned at its head and its tail, where a failure shows: the ledger is
  // folded on every append, and a 10 MB output must not cost seconds per step.
  const scanned =
    content.length <= maxScannedCharacters * 2
      ? content
      : `${content.slice(0, maxScannedCharacters)}\n${content.slice(-maxScannedCharacters)}`;
  const lines = scanned
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '');
  // Numbered lines are a file's contents in an editor view: code, not failures.
  const matching = lines.filter((line) => !/^\d+[:|]/.test(line) && looksLikeError(line));
  const first = lines[0];
  const found = isError && first !== undefined ? [first, ...matching] : matching;
  return [...new Set(found.map((line) => clipCodePoints(line, maxLineCharacters)))];
}

/** What one tool call names: found once, folded into a ledger at the step it is folded at. */
interface CallFacts {
  readonly id: string;
  readonly name: string;
  /** The command it ran (whitespace flattened, clipped), when its arguments hold one. */
  readonly command: string | undefined;
  /** The path its arguments name under a usual key. */
  readonly target: string | undefined;
  /** What it did with `target`. */
  readonly action: FileAction;
  /** Every path its arguments mention, in order, without duplicates. */
  readonly paths: readonly string[];
  /** Every identifier its arguments mention, once per argument string that holds it. */
  readonly identifiers: readonly string[];
}

interface ErrorLineFacts {
  readonly line: string;
  readonly paths: readonly string[];
}

/**
 * What the ledger takes from one item, found by scanning its text: the same for every ledger
 * the item is folded into, so it can be found once and kept (items never change). Folding it
 * (`ArtifactLedger.appendWith`) only updates the ledger's tables.
 */
export type ItemLedgerFacts =
  | {
      readonly kind: 'user';
      readonly paths: readonly string[];
      readonly identifiers: readonly string[];
    }
  | {
      readonly kind: 'assistant';
      readonly paths: readonly string[];
      readonly calls: readonly CallFacts[];
    }
  | { readonly kind: 'toolResult'; readonly errors: readonly ErrorLineFacts[] }
  | { readonly kind: 'none' };

const noFacts: ItemLedgerFacts = { kind: 'none' };

function callFacts(call: ToolCall): CallFacts {
  const parsed = parseArguments(call.arguments);
  const command = commandOfArguments(parsed);
  const target = targetPath(parsed);
  // One use per call of each path it names, the named target with the call's action.
  const paths = new Set<string>();
  const identifiers: string[] = [];
  for (const text of argumentStringsOf(call.arguments, parsed)) {
    for (const path of pathsIn(text)) paths.add(path);
    identifiers.push(...findIdentifiers(text));
  }
  return {
    id: call.id,
    name: call.name,
    command:
      command === undefined
        ? undefined
        : clipCodePoints(command.replace(/\s+/g, ' '), maxLineCharacters),
    target,
    action: command === undefined ? actionOf(call.name) : 'used',
    paths: [...paths],
    identifiers,
  };
}

/** What the ledger takes from `item` (`ItemLedgerFacts`), found by scanning it. */
export function ledgerFactsOf(item: Item): ItemLedgerFacts {
  switch (item.kind) {
    case 'user': {
      const text = userText(item);
      return { kind: 'user', paths: pathsIn(text), identifiers: findIdentifiers(text) };
    }
    case 'assistant':
      return {
        kind: 'assistant',
        paths: pathsIn(item.text ?? ''),
        calls: (item.toolCalls ?? []).map(callFacts),
      };
    case 'toolResult':
      return {
        kind: 'toolResult',
        errors: errorLinesOf(item.content, item.isError).map((line) => ({
          line,
          paths: pathsIn(line),
        })),
      };
    case 'context':
      return noFacts;
  }
}

/**
 * The artifact trail of a session, derived from its log: the files the work touched (read,
 * edited, created), the commands it ran and how they ended, the errors it saw (and whether a
 * later call on the same file or command succeeded), and the identifiers it passed to tools.
 * It is a projection of the logged items: `append` folds new items in at a cost that grows with
 * them alone, and rebuilding from the log (`ArtifactLedger.fromEvents`) gives the same ledger.
 * Compaction renders it into every summary (`## Artifact trail`), so the trail outlives the
 * turns that made it.
 *
 * @example
 * ```ts
 * import { ArtifactLedger } from 'loopkeeper/compaction';
 *
 * const ledger = new ArtifactLedger();
 * ledger.append([
 *   { kind: 'user', id: 'u1', content: 'Fix src/app.ts' },
 *   {
 *     kind: 'assistant',
 *     id: 'a1',
 *     toolCalls: [{ id: 'c1', name: 'edit', arguments: '{"path":"src/app.ts"}' }],
 *   },
 *   { kind: 'toolResult', id: 't1', callId: 'c1', toolName: 'edit', content: 'ok', isError: false },
 * ]);
 * console.log(ledger.toJSON().files); // src/app.ts: mentioned, edited
 * ```
 */
export class ArtifactLedger {
  #steps = 0;
  /** Made at the first fact: a session whose items name nothing (an idle chat) holds no maps. */
  #tables: LedgerTables | undefined;

  get #files() {
    return this.#table().files;
  }
  get #commands() {
    return this.#table().commands;
  }
  get #errors() {
    return this.#table().errors;
  }
  get #identifiers() {
    return this.#table().identifiers;
  }
  get #pending() {
    return this.#table().pending;
  }
  /** Keys of unresolved errors by subject, so a success resolves them without a scan. */
  get #openErrors() {
    return this.#table().openErrors;
  }

  #table(): LedgerTables {
    this.#tables ??= {
      files: new Map(),
      commands: new Map(),
      errors: new Map(),
      identifiers: new Map(),
      pending: new Map(),
      openErrors: new Map(),
    };
    return this.#tables;
  }

  /**
   * A ledger rebuilt from a session's log: every item of every `items-appended` event, in order.
   *
   * @example
   * ```ts
   * import { ArtifactLedger } from 'loopkeeper/compaction';
   * import { MemorySessionStore } from 'loopkeeper';
   *
   * const store = new MemorySessionStore();
   * const events = [];
   * for await (const event of store.read('session-1')) events.push(event);
   * console.log(ArtifactLedger.fromEvents(events).toJSON().steps);
   * ```
   */
  static fromEvents(events: Iterable<SessionEvent>): ArtifactLedger {
    const ledger = new ArtifactLedger();
    for (const event of events) ledger.apply(event);
    return ledger;
  }

  /** Folds one log event in (only `items-appended` carries items). */
  apply(event: SessionEvent): void {
    if (event.type === 'items-appended') this.append(event.items);
  }

  /** Folds new items in; the cost grows with these items only. */
  append(items: readonly Item[]): void {
    for (const item of items) this.#appendItem(item, ledgerFactsOf(item));
  }

  /**
   * Folds new items in with what was found in each before (`ledgerFactsOf`, kept by the
   * caller), so items folded into several ledgers are scanned once.
   */
  appendWith(items: readonly Item[], factsOf: (item: Item) => ItemLedgerFacts): void {
    for (const item of items) this.#appendItem(item, factsOf(item));
  }

  get steps(): number {
    return this.#steps;
  }

  #appendItem(item: Item, facts: ItemLedgerFacts): void {
    switch (facts.kind) {
      case 'user':
        for (const path of facts.paths) this.#touch(path, 'mentioned');
        for (const value of facts.identifiers) this.#identifier(value);
        return;
      case 'assistant':
        this.#steps += 1;
        for (const path of facts.paths) this.#touch(path, 'mentioned');
        for (const call of facts.calls) this.#call(call);
        return;
      case 'toolResult':
        if (item.kind === 'toolResult') {
          this.#result(item.callId, item.toolName, item.isError, facts.errors);
        }
        return;
      case 'none':
        return;
    }
  }

  #call(call: CallFacts): void {
    const { command, target } = call;
    for (const value of call.identifiers) this.#identifier(value);
    if (target !== undefined) this.#touch(target, call.action);
    for (const path of call.paths) if (path !== target) this.#touch(path, 'used');
    if (command !== undefined) {
      const known = this.#commands.get(command);
      this.#commands.delete(command);
      this.#commands.set(command, {
        command,
        tool: call.name,
        runs: (known?.runs ?? 0) + 1,
        lastStep: this.#steps,
        outcome: 'pending',
      });
    }
    const subject = command ?? target;
    this.#pending.set(call.id, { tool: call.name, subject, command });
  }

  #result(
    callId: string,
    toolName: string,
    isError: boolean,
    errors: readonly ErrorLineFacts[],
  ): void {
    const call = this.#tables?.pending.get(callId);
    this.#pending.delete(callId);
    const failed = isError || errors.length > 0;
    const subject = call?.subject;
    if (call?.command !== undefined) {
      const known = this.#commands.get(call.command);
      if (known !== undefined) {
        this.#commands.set(call.command, { ...known, outcome: failed ? 'failed' : 'ok' });
      }
    }
    if (!failed && subject !== undefined) {
      for (const key of this.#openErrors.get(subject) ?? []) {
        const error = this.#errors.get(key);
        if (error !== undefined) this.#errors.set(key, { ...error, resolved: true });
      }
      this.#openErrors.delete(subject);
    }
    for (const { line, paths } of errors) {
      for (const path of paths) this.#touch(path, 'mentioned');
      // Seen again: it moves to the end, as the newest.
      this.#errors.delete(line);
      this.#errors.set(line, {
        line,
        tool: call?.tool ?? toolName,
        subject,
        step: this.#steps,
        resolved: false,
      });
      if (subject !== undefined) {
        const open = this.#openErrors.get(subject) ?? [];
        if (!open.includes(line)) open.push(line);
        this.#openErrors.set(subject, open);
      }
    }
  }

  #touch(path: string, action: FileAction): void {
    const known = this.#files.get(path);
    if (known === undefined) {
      this.#files.set(path, { path, actions: [action], lastStep: this.#steps, uses: 1 });
      return;
    }
    if (!known.actions.includes(action)) known.actions.push(action);
    known.lastStep = this.#steps;
    known.uses += 1;
  }

  #identifier(value: string): void {
    const known = this.#identifiers.get(value);
    this.#identifiers.set(value, {
      value,
      uses: (known?.uses ?? 0) + 1,
      lastStep: this.#steps,
    });
  }

  /** The ledger as plain data (copies), for rendering and comparison. */
  toJSON(): ArtifactLedgerData {
    if (this.#tables === undefined) {
      return { steps: this.#steps, files: [], commands: [], errors: [], identifiers: [] };
    }
    return {
      steps: this.#steps,
      files: [...this.#files.values()].map((file) => ({ ...file, actions: [...file.actions] })),
      commands: [...this.#commands.values()],
      errors: [...this.#errors.values()],
      identifiers: [...this.#identifiers.values()],
    };
  }
}

interface LedgerTables {
  readonly files: Map<string, MutableFile>;
  readonly commands: Map<string, LedgerCommand>;
  readonly errors: Map<string, LedgerError>;
  readonly identifiers: Map<string, LedgerIdentifier>;
  readonly pending: Map<string, PendingCall>;
  readonly openErrors: Map<string, string[]>;
}
