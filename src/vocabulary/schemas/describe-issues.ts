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

/** One problem in the house wording, with the issue and the full path it comes from. */
export interface Explained {
  readonly issue: Issue;
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * Valibot's issues in the house wording, one message each: the path, what it must be, what was
 * found (`toolCalls[0].name must not be empty (got string '')`). `subject` names a value whose
 * own type is wrong. A union whose value matched one branch's type reports that branch's issues
 * (the variant already reports only the branch its tag names).
 */
export function explainIssues(
  issues: readonly Issue[],
  subject: string,
  prefix: readonly PropertyKey[] = [],
): Explained[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...(issue.path ?? []).map(({ key }) => key as PropertyKey)];
    // A union's inner issues start at the union's value; those past its type (and its keys) are
    // the issues of the branch the value meant.
    const branch = (issue.issues ?? []).filter(
      (inner) => (inner.path?.length ?? 0) > 0 && !isMissing(inner),
    );
    if (issue.type === 'union' && branch.length > 0) return explainIssues(branch, subject, path);
    const where = pathText(path) || subject;
    if (isMissing(issue)) return [{ issue, path, message: `${where} is missing` }];
    if (issue.expected === 'never') {
      return [{ issue, path, message: `field '${where}' is not supported` }];
    }
    // Valibot's own messages start with "Invalid"; any other was written by a schema here.
    const rule = issue.message.startsWith('Invalid ')
      ? `must be ${wanted(issue.expected)}`
      : issue.message;
    return [{ issue, path, message: `${where} ${rule} (got ${describeValue(issue.input)})` }];
  });
}

/** `explainIssues`, the messages only. */
export function describeIssues(issues: readonly Issue[], subject: string): string[] {
  return explainIssues(issues, subject).map(({ message }) => message);
}

function isMissing(issue: Issue): boolean {
  return issue.type.endsWith('object') && issue.expected?.startsWith('"') === true;
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

/** What is wrong with `value` by `schema`, in the house wording; empty when nothing is. */
export function shapeProblems(schema: GenericSchema, value: unknown, subject: string): string[] {
  const result = safeParse(schema, value);
  return result.success ? [] : describeIssues(result.issues, subject);
}
