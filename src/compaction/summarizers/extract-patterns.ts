/**
 * Patterns the extractive summarizer uses to find facts in plain text. They lean towards
 * precision: a path or error line it finds is kept forever, so false hits cost summary space.
 */

const fileExtensions =
  'py|pyi|ts|tsx|js|jsx|mjs|cjs|json|jsonl|md|rst|txt|yaml|yml|toml|cfg|ini|conf|env|sh|bash|zsh|' +
  'rs|go|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|scala|html|htm|css|scss|sql|csv|tsv|xml|lock|log|' +
  'ipynb|dockerfile|gradle|patch|diff|pem|key|zip|tar|gz|png|jpg|jpeg|gif|svg|pdf';

/**
 * Each pattern with a character every match of it holds, so a text without it is not scanned
 * by that pattern: a path pattern tried at every word of a long text costs more than the check.
 */
const pathPatterns: readonly { readonly pattern: RegExp; readonly needs: string }[] = [
  // Absolute, home-relative and dot-relative paths: /testbed/src/x.py, ~/notes, ./run.sh
  { pattern: /(?<![\w:/.~<-])(?:~|\.{1,2})?\/(?:[\w.@+-]+\/)*[\w@+-][\w.@+-]*/g, needs: '/' },
  // Relative paths with a directory and an extension: src/app/main.ts
  {
    pattern: /(?<![\w:/.~@+-])(?:[\w@+-][\w.@+-]*\/)+[\w@+-][\w.@+-]*\.[A-Za-z0-9]{1,10}\b/g,
    needs: '/',
  },
  // Bare file names with a well-known extension: setup.py, package.json
  {
    pattern: new RegExp(
      `(?<![\\w/.@+-])[\\w@+-][\\w.@+-]*\\.(?:${fileExtensions})\\b(?![\\w/-])`,
      'gi',
    ),
    needs: '.',
  },
];

/** File paths mentioned in the text, in order of first appearance, without duplicates. */
export function findFilePaths(text: string): string[] {
  const found: { index: number; path: string }[] = [];
  for (const { pattern, needs } of pathPatterns) {
    if (!text.includes(needs)) continue;
    for (const match of text.matchAll(pattern)) {
      const path = match[0].replace(/[.,;:]+$/, '');
      // A lone "/" or a path made only of dots and slashes names nothing worth keeping.
      if (/[\w@+-]/.test(path) && path.length <= 300) {
        found.push({ index: match.index, path });
      }
    }
  }
  found.sort((left, right) => left.index - right.index);
  return [...new Set(found.map((entry) => entry.path))];
}

/**
 * URLs mentioned in the text, without duplicates. A URL does not end in the punctuation of the
 * sentence around it (`see https://owncloud.org.`, `…/login, then`): the last character must
 * be one that can end a URL.
 */
export function findUrls(text: string): string[] {
  if (!text.includes('://')) return [];
  const pattern = /\bhttps?:\/\/[^\s"'<>`)\]]*[^\s"'<>`)\].,;:!?]/g;
  return [...new Set([...text.matchAll(pattern)].map((match) => match[0]))];
}

const errorLinePatterns: readonly RegExp[] = [
  /^\s*(?:error|errors|fatal|panic|exception|failed|failure)\b/i,
  // `ValueError:`, and lower-case module errors such as `sqlite3.error:` or `http.client.error:`.
  // Only tested, never matched: a word boundary always stands somewhere before the word (at the
  // start of its run of word characters), so the prefix `\b[\w.]*` that would name the module
  // adds nothing to the test but backtracking on every word.
  /(?:error|exception|failure)s?\b\s*:/i,
  /^\s*Traceback \(most recent call last\)/,
  /\b(?:command not found|No such file or directory|Permission denied|Segmentation fault|not found|denied|invalid|cannot|unable to|failed|failure|syntax error)\b/i,
  /\bexit(?:ed)? (?:code|status|with code)\s*[1-9]\d*/i,
  // Linter findings (flake8/pycodestyle codes), as SWE-agent's edit checks report them.
  /\b[EFW]\d{3}\b/,
];

/**
 * A word every error-line pattern's match holds (`not found` of `command not found`, `fail` of
 * `failed`, `denied` of `Permission denied`, ...), case aside: a line without one matches none
 * of them, and most lines of an output have none, so one scan rules them out instead of six.
 */
const errorLineWords =
  /error|fatal|panic|exception|fail|traceback|not found|no such file|denied|invalid|cannot|unable to|segmentation|exit|[efw]\d{3}/i;

/** Whether a line reads like an error message. */
export function looksLikeError(line: string): boolean {
  return errorLineWords.test(line) && errorLinePatterns.some((pattern) => pattern.test(line));
}

/**
 * Each pattern with a character every match of it holds, so a text without that character is
 * not scanned at all: an output rarely lacks digits, but most lack an `@`.
 */
const identifierPatterns: readonly { readonly pattern: RegExp; readonly needs?: string }[] = [
  // Letters and digits mixed: reservation, order and payment ids, flight numbers, hashes.
  { pattern: /\b(?=[A-Za-z_-]*\d)(?=[\d_-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9_-]{3,}\b/g },
  { pattern: /\b\d{4}-\d{2}-\d{2}\b/g, needs: '-' },
  { pattern: /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g, needs: '@' },
  // Numeric constants of four digits or more.
  { pattern: /(?<![\w.-])\d{4,}(?:\.\d+)?(?![\w-])/g },
];

/**
 * Identifiers in the text, in order of first appearance, without duplicates: ids that mix
 * letters and digits, ISO dates, e-mail addresses and numbers of four digits or more. These
 * are what an agent passes back to tools, and what a summary in prose tends to lose.
 */
export function findIdentifiers(text: string): string[] {
  const found: { index: number; value: string }[] = [];
  for (const { pattern, needs } of identifierPatterns) {
    if (needs !== undefined && !text.includes(needs)) continue;
    for (const match of text.matchAll(pattern)) found.push({ index: match.index, value: match[0] });
  }
  found.sort((left, right) => left.index - right.index);
  return [...new Set(found.map((entry) => entry.value))];
}

const commandKeys = ['command', 'cmd', 'script', 'shell', 'code', 'query'];

/** Tool-call arguments parsed once: the JSON value, or `invalid` when the text is not JSON. */
export type ParsedArguments = { readonly value: unknown } | 'invalid';

/** `argumentsText` parsed for the functions below that take parsed arguments. */
export function parseArguments(argumentsText: string): ParsedArguments {
  try {
    return { value: JSON.parse(argumentsText) };
  } catch {
    return 'invalid';
  }
}

/**
 * The command a tool call ran, when its arguments hold one under a usual key (`command`,
 * `cmd`, ...), else undefined.
 */
export function commandOfToolCall(argumentsText: string): string | undefined {
  return commandOfArguments(parseArguments(argumentsText));
}

/** `commandOfToolCall` of arguments parsed already. */
export function commandOfArguments(parsed: ParsedArguments): string | undefined {
  if (parsed === 'invalid') return undefined;
  const { value } = parsed;
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  for (const key of commandKeys) {
    const found = record[key];
    if (typeof found === 'string' && found.trim() !== '') return found.trim();
  }
  return undefined;
}

/** Every string and number inside tool-call arguments (numbers as digits), or the raw text when it is not JSON. */
export function argumentStrings(argumentsText: string): string[] {
  return argumentStringsOf(argumentsText, parseArguments(argumentsText));
}

/** `argumentStrings` of arguments parsed already (`parsed` is `parseArguments(argumentsText)`). */
export function argumentStringsOf(argumentsText: string, parsed: ParsedArguments): string[] {
  if (parsed === 'invalid') return [argumentsText];
  const strings: string[] = [];
  // An explicit stack, not recursion: arguments nested 100,000 levels deep (a model can send
  // them) must not overflow the stack of the loop that folds them into its ledger.
  const stack: unknown[] = [parsed.value];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') strings.push(value);
    // A number is an identifier too (an amount, a seat, a line number), as its digits.
    else if (typeof value === 'number' && Number.isFinite(value)) strings.push(String(value));
    else if (typeof value === 'object' && value !== null) {
      const children = Array.isArray(value) ? value : Object.values(value);
      for (let index = children.length - 1; index >= 0; index -= 1) stack.push(children[index]);
    }
  }
  return strings;
}

const constraintPattern =
  /\b(?:must|must not|mustn't|never|always|do not|don't|should not|shouldn't|only|without|required?|constraint|make sure|avoid)\b/i;

/** Whether a sentence of a user message reads like a decision or a constraint. */
export function looksLikeConstraint(line: string): boolean {
  return constraintPattern.test(line);
}
