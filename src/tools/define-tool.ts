import { ToolError } from '../errors/tool-error.js';
import type { ToolDefinition } from './types.js';
import { assertValidToolDefinition } from './validate-tool-definition.js';

/**
 * Checks a tool definition once, at definition time, and returns a frozen copy. `parameters`
 * is copied and deep-frozen so later edits to the caller's schema cannot change what the model
 * is told. Throws `ToolError` (code `tool_invalid_definition`) listing every problem.
 *
 * @example
 * ```ts
 * import { defineTool } from 'loopkeeper';
 *
 * const add = defineTool({
 *   name: 'add',
 *   description: 'Adds two numbers.',
 *   parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
 *   execute: async ({ a, b }: { a: number; b: number }) => String(a + b),
 * });
 * ```
 */
export function defineTool<Args = Record<string, unknown>>(
  definition: ToolDefinition<Args>,
): ToolDefinition<Args> {
  assertValidToolDefinition(definition);
  const tool: ToolDefinition<Args> = {
    name: definition.name,
    description: definition.description,
    parameters: deepFreeze(copySchema(definition.name, definition.parameters)),
    ...(definition.timeoutMs === undefined ? {} : { timeoutMs: definition.timeoutMs }),
    ...(definition.needsApproval === undefined ? {} : { needsApproval: definition.needsApproval }),
    ...(definition.idempotent === undefined ? {} : { idempotent: definition.idempotent }),
    // Called through the original object so an `execute` method that uses `this` keeps working.
    execute: (args, options) => definition.execute(args, options),
  };
  return Object.freeze(tool);
}

function copySchema(
  name: string,
  parameters: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  try {
    return structuredClone(parameters) as Record<string, unknown>;
  } catch (error) {
    throw new ToolError(
      `Tool "${name}" is not a valid tool definition: parameters must be plain JSON data.`,
      { code: 'tool_invalid_definition', cause: error },
    );
  }
}

function deepFreeze<Value>(value: Value): Value {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) {
      deepFreeze(child);
    }
    Object.freeze(value);
  }
  return value;
}
