import { is } from 'valibot';
import { ToolError } from '../errors/tool-error.js';
import { isRecord, shapeProblems } from '../vocabulary/schemas/describe-issues.js';
import { TimeoutSchema, ToolDefinitionSchema } from '../vocabulary/schemas/tool-definition.js';

/**
 * Throws a `ToolError` naming every problem with a tool definition (by `ToolDefinitionSchema`),
 * so a bad tool fails when it is defined rather than when the model first calls it.
 */
export function assertValidToolDefinition(definition: unknown): void {
  if (!isRecord(definition)) {
    throw new ToolError('A tool definition must be an object.', {
      code: 'tool_invalid_definition',
    });
  }
  const { name } = definition;
  const label = typeof name === 'string' ? `Tool "${name}"` : 'Tool';
  const problems = shapeProblems(ToolDefinitionSchema, definition, 'the definition');
  if (problems.length > 0) {
    throw new ToolError(`${label} is not a valid tool definition: ${problems.join('; ')}.`, {
      code: 'tool_invalid_definition',
    });
  }
}

export function isValidTimeout(value: unknown): value is number {
  return is(TimeoutSchema, value);
}
