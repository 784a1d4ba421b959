import { isDeepStrictEqual } from 'node:util';
import { isRecord } from '../vocabulary/schemas/describe-issues.js';

export type ParsedArguments =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly message: string };

/**
 * Parses the raw arguments string a model produced. An empty string counts as `{}` because some
 * OpenAI-compatible servers send it for tools without parameters.
 */
export function parseToolArguments(options: {
  toolName: string;
  argumentsText: string;
}): ParsedArguments {
  const { toolName, argumentsText } = options;
  if (argumentsText.trim() === '') {
    return { ok: true, value: {} };
  }
  let value: unknown;
  try {
    value = JSON.parse(argumentsText);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      message: `Error: Invalid arguments for tool "${toolName}": not valid JSON (${reason}). Call the tool again with a JSON object as its arguments.`,
    };
  }
  if (!isRecord(value)) {
    return {
      ok: false,
      message: `Error: Invalid arguments for tool "${toolName}": expected a JSON object, got ${jsonTypeOf(value)}. Call the tool again with a JSON object as its arguments.`,
    };
  }
  return { ok: true, value };
}

/**
 * Checks arguments against a small, deliberate subset of JSON Schema — the mistakes models
 * actually make — so the model gets an actionable message instead of a tool crash:
 * - `required`: every listed property is present;
 * - `properties.<name>.type`: a top-level property has the declared JSON type (a string or a
 *   list of types; `integer` means a whole number);
 * - `properties.<name>.enum`: a top-level property is one of the listed values.
 * Every other keyword (nested schemas, formats, ranges, `additionalProperties`, ...) is ignored;
 * tools that need more validate inside `execute`. Returns one message per problem.
 */
export function findArgumentProblems(options: {
  parameters: Readonly<Record<string, unknown>>;
  args: Readonly<Record<string, unknown>>;
}): string[] {
  const { parameters, args } = options;
  const problems: string[] = [];
  const { required, properties } = parameters;
  if (Array.isArray(required)) {
    for (const name of required) {
      if (typeof name === 'string' && !Object.hasOwn(args, name)) {
        problems.push(`missing required property "${name}"`);
      }
    }
  }
  if (!isRecord(properties)) {
    return problems;
  }
  for (const [name, value] of Object.entries(args)) {
    const schema = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (isRecord(schema)) {
      problems.push(...findPropertyProblems({ name, value, schema }));
    }
  }
  return problems;
}

function findPropertyProblems(options: {
  name: string;
  value: unknown;
  schema: Record<string, unknown>;
}): string[] {
  const { name, value, schema } = options;
  const { type: declared, enum: allowed } = schema;
  const types = typeof declared === 'string' ? [declared] : Array.isArray(declared) ? declared : [];
  // A type word outside JSON Schema's seven is a schema mistake, not the model's: let it pass.
  const checkable = types.length > 0 && types.every((type) => Object.hasOwn(JSON_TYPES, type));
  if (checkable && !types.some((type) => JSON_TYPES[type]?.(value))) {
    return [`property "${name}" must be ${types.join(' or ')}, got ${jsonTypeOf(value)}`];
  }
  // Arguments come from JSON.parse, so deep strict equality is JSON equality; `===` keeps -0 = 0.
  const listedValue = (candidate: unknown) =>
    candidate === value || isDeepStrictEqual(candidate, value);
  if (Array.isArray(allowed) && !allowed.some(listedValue)) {
    const listed = allowed.map((candidate) => JSON.stringify(candidate)).join(', ');
    return [`property "${name}" must be one of ${listed}, got ${JSON.stringify(value)}`];
  }
  return [];
}

/** JSON Schema's seven type words and what each accepts (`integer`: a whole number). */
const JSON_TYPES: Readonly<Record<string, (value: unknown) => boolean>> = {
  string: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number',
  integer: Number.isInteger,
  boolean: (value) => typeof value === 'boolean',
  object: isRecord,
  array: Array.isArray,
  null: (value) => value === null,
};

function jsonTypeOf(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  if (Array.isArray(value)) {
    return 'array';
  }
  return typeof value;
}
