import { describeValue, isRecord } from './describe-value.js';

/**
 * How deeply provider data may nest. Real payloads are a level or two deep; the limit keeps a
 * hostile value well inside the store's own nesting limit.
 */
const MAX_PROVIDER_DATA_NESTING = 64;

/**
 * What is wrong with a reasoning part's `providerData`, or undefined when it is an object of
 * JSON values that a JSON round trip gives back unchanged. Refused: `undefined` values (JSON
 * drops them), numbers that are not finite (JSON turns them into `null`), functions, symbols,
 * bigints, class instances (dates, maps) and cycles, since the log must give the provider back
 * exactly what it sent.
 */
export function providerDataProblem(value: unknown): string | undefined {
  if (!isRecord(value) || !isPlainObject(value)) {
    return `providerData must be an object keyed by provider (got ${describeValue(value)})`;
  }
  return jsonProblem({ value, path: 'providerData', depth: 0, seen: new Set() });
}

function jsonProblem({
  value,
  path,
  depth,
  seen,
}: {
  readonly value: unknown;
  readonly path: string;
  readonly depth: number;
  readonly seen: Set<object>;
}): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') {
    return Number.isFinite(value) ? undefined : `${path} is ${value}, which JSON cannot hold`;
  }
  if (typeof value !== 'object') return `${path} is ${describeValue(value)}, not a JSON value`;
  if (depth >= MAX_PROVIDER_DATA_NESTING) {
    return `${path} nests deeper than ${MAX_PROVIDER_DATA_NESTING} levels`;
  }
  if (seen.has(value)) return `${path} refers back to itself`;
  if (!Array.isArray(value) && !isPlainObject(value)) {
    return `${path} is an instance of a class, not a plain JSON object`;
  }
  seen.add(value);
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((entry, index) => [`[${index}]`, entry])
    : Object.entries(value).map(([key, entry]) => [`.${key}`, entry]);
  for (const [step, entry] of entries) {
    const problem = jsonProblem({ value: entry, path: `${path}${step}`, depth: depth + 1, seen });
    if (problem !== undefined) return problem;
  }
  seen.delete(value);
  return undefined;
}

function isPlainObject(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * The first problem of an item's provider data (on a context item, or on its reasoning parts,
 * with the part's index), or undefined. Items that carry none have none.
 */
export function itemProviderDataProblem(item: unknown): string | undefined {
  if (!isRecord(item)) return undefined;
  if (item['kind'] === 'context') {
    const providerData = item['providerData'];
    return providerData === undefined ? undefined : providerDataProblem(providerData);
  }
  if (item['kind'] !== 'assistant') return undefined;
  const reasoning: unknown = item['reasoning'];
  if (!Array.isArray(reasoning)) return undefined;
  for (const [index, part] of (reasoning as unknown[]).entries()) {
    const providerData = isRecord(part) ? part['providerData'] : undefined;
    if (providerData === undefined) continue;
    const problem = providerDataProblem(providerData);
    if (problem !== undefined) return `reasoning[${index}].${problem}`;
  }
  return undefined;
}
