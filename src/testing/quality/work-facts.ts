import type { TokenCounter } from '../../tokens/types.js';
import type { Item } from '../../transcript/types.js';

/**
 * The facts of an agent's work that compaction must not lose, as the quality harness counts
 * them. The patterns are the harness's own, deliberately broader than the extractive
 * summarizer's, so the harness does not grade the summarizer by its own rules.
 */
export interface WorkFacts {
  /**
   * File paths and URLs the work touched: in the user's and the assistant's words, in tool
   * arguments and in error lines. Paths that only appear inside an output (a directory
   * listing, a file's contents) are re-derivable by re-running the tool and are not counted.
   */
  readonly paths: readonly string[];
  /** Lines of tool output that report a failure, and the first line of every failed result. */
  readonly errorLines: readonly string[];
  /** Ids, dates, e-mail addresses and numeric constants the user gave or the agent passed to tools. */
  readonly identifiers: readonly string[];
}

const urlPattern = /\bhttps?:\/\/[^\s"'<>`)\]]+/g;
const slashPathPattern = /(?<![\w/])(?:~|\.{1,2})?\/?(?:[\w.@+-]+\/)+[\w.@+-]*[\w@+-]/g;
const fileNamePattern =
  /(?<![\w/.-])[\w-]+(?:\.[\w-]+)*\.(?:py|pyi|ts|tsx|js|jsx|mjs|json|jsonl|md|rst|txt|yaml|yml|toml|cfg|ini|sh|html|htm|css|php|go|rs|java|c|h|cpp|rb|log|csv|xml|lock|sql|env|conf)\b/g;

function trimPunctuation(text: string): string {
  return text.replace(/[.,;:\\]+$/, '');
}

function isPathLike(path: string): boolean {
  if (!/[A-Za-z]/.test(path)) return false;
  const slashes = path.split('/').length - 1;
  return /^(?:~|\.{1,2})?\//.test(path) || /\.[A-Za-z][\w]{0,9}$/.test(path) || slashes >= 2;
}

function findPaths(text: string): string[] {
  const found: string[] = [];
  const withoutUrls = text.replace(urlPattern, (url) => {
    found.push(trimPunctuation(url));
    return ' ';
  });
  for (const match of withoutUrls.matchAll(slashPathPattern)) {
    const path = trimPunctuation(match[0]);
    if (isPathLike(path)) found.push(path);
  }
  for (const match of withoutUrls.matchAll(fileNamePattern)) found.push(match[0]);
  return found;
}

// Reports of failure, not code that merely mentions errors: numbered source lines (an
// editor's view of a file) are left out.
const errorPattern =
  /^(?:error|errors|fatal|exception|traceback|failed)\b|^[\w.]*(?:error|exception)\b\s*:|\b(?:command not found|no such file or directory|permission denied|syntax error)|\b[EFW]\d{3}\b/i;
const codeLinePattern = /^\d+[:|]/;

function findErrorLines(text: string, isError: boolean): string[] {
  const lines = text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line.length >= 8 && line.length <= 400);
  const matching = lines.filter((line) => !codeLinePattern.test(line) && errorPattern.test(line));
  return isError && lines[0] !== undefined ? [lines[0], ...matching] : matching;
}

const identifierPatterns: readonly RegExp[] = [
  // Letters and digits mixed: reservation and payment ids, flight numbers, hashes.
  /\b(?=[A-Za-z_-]*\d)(?=[\d_-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9_-]{3,}\b/g,
  /\b\d{4}-\d{2}-\d{2}\b/g,
  /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g,
  // Numeric constants of four or more digits.
  /(?<![\w.-])\d{4,}(?:\.\d+)?(?![\w-])/g,
];

function findIdentifiers(text: string): string[] {
  return identifierPatterns.flatMap((pattern) => [...text.matchAll(pattern)].map((m) => m[0]));
}

function userText(item: Item): string {
  if (item.kind !== 'user') return '';
  return typeof item.content === 'string'
    ? item.content
    : item.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/**
 * The facts in some items: paths from every text, errors from tool output, identifiers from the user and from tool arguments.
 *
 * @example
 * ```ts
 * import { workFactsOf } from 'loopkeeper/testing';
 *
 * const facts = workFactsOf([
 *   {
 *     kind: 'user',
 *     id: 'u1',
 *     content: 'Fix the crash in src/parser.ts (TypeError: x is undefined)',
 *   },
 * ]);
 * console.log(facts.paths, facts.errorLines);
 * ```
 */
export function workFactsOf(items: readonly Item[]): WorkFacts {
  const paths: string[] = [];
  const errorLines: string[] = [];
  const identifiers: string[] = [];
  for (const item of items) {
    if (item.kind === 'user') {
      const text = userText(item);
      paths.push(...findPaths(text));
      identifiers.push(...findIdentifiers(text));
    } else if (item.kind === 'assistant') {
      paths.push(...findPaths(item.text ?? ''));
      for (const call of item.toolCalls ?? []) {
        paths.push(...findPaths(call.arguments));
        identifiers.push(...findIdentifiers(call.arguments));
      }
    } else if (item.kind === 'toolResult') {
      const errors = findErrorLines(item.content, item.isError);
      errorLines.push(...errors);
      paths.push(...errors.flatMap(findPaths));
    }
  }
  return {
    paths: unique(paths),
    errorLines: unique(errorLines),
    identifiers: unique(identifiers),
  };
}

/**
 * Tokens it takes to write every fact once as `isVisible` checks it (its first 160 characters,
 * one per line, nothing else): the least room any text showing them all needs.
 */
export function factTokens(facts: WorkFacts, tokens: TokenCounter): number {
  return tokens.countText(factLines(facts).join('\n'));
}

/** Every fact as `isVisible` checks it: its first 160 characters, whitespace-flattened. */
export function factLines(facts: WorkFacts): string[] {
  return [...facts.paths, ...facts.errorLines, ...facts.identifiers].map((fact) =>
    flatten(fact).slice(0, 160),
  );
}

/** Everything a model reads in a request, whitespace-flattened, for "is this fact still visible" checks. */
export function visibleText(instructions: string | undefined, items: readonly Item[]): string {
  const parts: string[] = [instructions ?? ''];
  for (const item of items) {
    switch (item.kind) {
      case 'user':
        parts.push(userText(item));
        break;
      case 'context':
        parts.push(item.text);
        break;
      case 'toolResult':
        parts.push(item.toolName, item.content);
        break;
      case 'assistant':
        parts.push(item.text ?? '');
        for (const call of item.toolCalls ?? []) parts.push(call.name, call.arguments);
        break;
    }
  }
  return flatten(parts.join('\n'));
}

/** Whitespace collapsed, so a fact re-wrapped in a summary still matches. */
export function flatten(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Whether a fact is still visible; long lines count as visible when their first 160 characters are. */
export function isVisible(fact: string, visible: string): boolean {
  return visible.includes(flatten(fact).slice(0, 160));
}
