import { type BaseIssue, type GenericSchema, safeParse } from 'valibot';

type Issue = BaseIssue<unknown>;

/** A short description of a found value for an error message, without dumping large content. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return value === null ? 'null' : 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') {
    const points = [...value];
    return `string '${points.length > 40 ? `${points.slice(0, 40).join('')}...` : value}'`;
  }
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

/** A plain object (not null, not an array): the only thing that can be an item or a message. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One problem in the house wording, with the issue and the full path it comes from. */
export interface Explained {
  readonly issue: Issue;
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** What to explain: valibot's issues, and the schema and value they came from. */
export interface ExplainInput {
  readonly issues: readonly Issue[];
  /** Names the value itself when its own type is wrong. */
  readonly subject: string;
  /** Lets a missing field say what it must be: parsed again with the field present. */
  readonly schema: GenericSchema;
  readonly value: unknown;
}

/**
 * Valibot's issues in the house wording, one message each: the path, what it must be, what was
 * found (`toolCalls[0].name must not be empty (got string '')`). A union whose value matched one
 * branch's type reports that branch's issues (a variant reports only the branch its tag names).
 */
export function explainIssues(
  input: ExplainInput,
  prefix: readonly PropertyKey[] = [],
): Explained[] {
  return input.issues.flatMap((issue) => {
    const path = [...prefix, ...keysOf(issue)];
    // A union's inner issues start at the union's value; those past its type (and its keys) are
    // the issues of the branch the value meant.
    const branch = (issue.issues ?? []).filter(
      (inner) => (inner.path?.length ?? 0) > 0 && !isMissing(inner),
    );
    if (issue.type === 'union' && branch.length > 0) {
      return explainIssues({ ...input, issues: branch }, path);
    }
    const where = pathText(path) || input.subject;
    if (issue.expected === 'never') {
      return [{ issue, path, message: `field '${where}' is not supported` }];
    }
    const rule = isMissing(issue) ? missingRule(input, path) : ruleOf(issue);
    return [{ issue, path, message: `${where} ${rule} (got ${describeValue(issue.input)})` }];
  });
}

/** What is wrong with `value` by `schema`, in the house wording; empty when nothing is. */
export function shapeProblems(schema: GenericSchema, value: unknown, subject: string): string[] {
  const result = safeParse(schema, value);
  if (result.success) return [];
  return explainIssues({ issues: result.issues, subject, schema, value }).map(
    ({ message }) => message,
  );
}

function ruleOf(issue: Issue): string {
  // Valibot's own messages start with "Invalid"; any other was written by a schema here.
  return issue.message.startsWith('Invalid ') ? `must be ${wanted(issue.expected)}` : issue.message;
}

function isMissing(issue: Issue): boolean {
  return issue.type.endsWith('object') && issue.expected?.startsWith('"') === true;
}

/**
 * Valibot names only a missing key, not what it must be: parse again with the key present but
 * undefined, and the key's own schema says what it must be.
 */
function missingRule({ schema, value }: ExplainInput, path: readonly PropertyKey[]): string {
  const { issues } = safeParse(schema, presentAt(value, path));
  const issue = issues?.find((found) => pathText(keysOf(found)) === pathText(path));
  return issue === undefined ? 'is missing' : ruleOf(issue);
}

type Slots = Record<PropertyKey, unknown>;

/** A copy of `value` along `path` with the last key present and undefined; the rest is shared. */
function presentAt(value: unknown, [key, ...rest]: readonly PropertyKey[]): unknown {
  if (key === undefined) return undefined;
  const copy: Slots = Object.assign(Array.isArray(value) ? [] : {}, value);
  copy[key] = presentAt(copy[key], rest);
  return copy;
}

function keysOf(issue: Issue): PropertyKey[] {
  return (issue.path ?? []).map(({ key }) => key as PropertyKey);
}

function pathText(path: readonly PropertyKey[]): string {
  const keys = path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`));
  return keys.join('').replace(/^\./, '');
}

const words: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  Object: 'an object',
  Array: 'an array',
};

/** `("a" | "b")` as `'a' or 'b'`, `Object` as `an object`. */
function wanted(expected: string | null): string {
  return (expected ?? 'something else')
    .replace(/[()]/g, '')
    .split(/ \| |, /)
    .map((option) => words[option] ?? option.replace(/^"(.*)"$/, "'$1'"))
    .join(', ')
    .replace(/, ([^,]*)$/, ' or $1');
}
