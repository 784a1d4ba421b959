import { ToolError } from '../errors/tool-error.js';

/**
 * The name rule OpenAI enforces for function tools; other providers accept a superset.
 *
 * @example
 * ```ts
 * import { TOOL_NAME_PATTERN } from 'loopkeeper/tools';
 *
 * // Turn an MCP tool name such as 'github.search issues' into one the providers accept.
 * const name = 'github.search issues'.replace(/[^a-zA-Z0-9_-]/g, '_');
 * console.log(TOOL_NAME_PATTERN.test(name)); // true
 * ```
 */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** The longest timer Node honours; larger values silently fire after 1 ms. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * Throws a `ToolError` naming every problem with a tool definition, so a bad tool fails when it
 * is defined rather than when the model first calls it.
 */
export function assertValidToolDefinition(definition: unknown): void {
  if (!isPlainObject(definition)) {
    throw new ToolError('A tool definition must be an object.', {
      code: 'tool_invalid_definition',
    });
  }
  const { name } = definition;
  const label = typeof name === 'string' ? `Tool "${name}"` : 'Tool';
  const problems = findDefinitionProblems(definition);
  if (problems.length > 0) {
    throw new ToolError(`${label} is not a valid tool definition: ${problems.join('; ')}.`, {
      code: 'tool_invalid_definition',
    });
  }
}

function findDefinitionProblems(definition: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const { name, description, parameters, timeoutMs, execute, needsApproval, idempotent } =
    definition;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    problems.push(
      `name must be 1 to 64 letters, digits, underscores or hyphens (got ${describe(name)})`,
    );
  }
  if (typeof description !== 'string') {
    problems.push(`description must be a string (got ${describe(description)})`);
  }
  problems.push(...findParametersProblems(parameters));
  if (timeoutMs !== undefined && !isValidTimeout(timeoutMs)) {
    problems.push(
      `timeoutMs must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS} (got ${describe(timeoutMs)})`,
    );
  }
  if (
    needsApproval !== undefined &&
    typeof needsApproval !== 'boolean' &&
    typeof needsApproval !== 'function'
  ) {
    problems.push(
      `needsApproval must be true, false or a function (got ${describe(needsApproval)})`,
    );
  }
  if (idempotent !== undefined && typeof idempotent !== 'boolean') {
    problems.push(`idempotent must be true or false (got ${describe(idempotent)})`);
  }
  if (typeof execute !== 'function') {
    problems.push(`execute must be a function (got ${describe(execute)})`);
  }
  return problems;
}

function findParametersProblems(parameters: unknown): string[] {
  if (!isPlainObject(parameters)) {
    return [`parameters must be a JSON Schema object (got ${describe(parameters)})`];
  }
  const problems: string[] = [];
  const { type, properties, required } = parameters;
  if (type !== 'object') {
    problems.push(
      `parameters.type must be 'object', as models only pass an arguments object (got ${describe(type)})`,
    );
  }
  if (properties !== undefined && !isPlainObject(properties)) {
    problems.push(`parameters.properties must be an object (got ${describe(properties)})`);
  }
  if (
    required !== undefined &&
    !(Array.isArray(required) && required.every((entry) => typeof entry === 'string'))
  ) {
    problems.push(`parameters.required must be an array of strings (got ${describe(required)})`);
  }
  return problems;
}

export function isValidTimeout(value: unknown): value is number {
  return (
    typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_TIMEOUT_MS
  );
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (typeof value === 'string') {
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return 'an array';
  }
  if (value === null) {
    return 'null';
  }
  if (typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  return typeof value;
}
