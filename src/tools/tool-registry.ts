import { ConfigError } from '../errors/config-error.js';
import type { ToolSpec } from '../model/types.js';
import type { AnyToolDefinition } from './types.js';
import { assertValidToolDefinition } from './validate-tool-definition.js';

/** The tools of one loop, looked up by name. */
export interface ToolRegistry {
  readonly tools: readonly AnyToolDefinition[];
  readonly names: readonly string[];
  /** What the model is told about each tool, in definition order. */
  readonly specs: readonly ToolSpec[];
  get(name: string): AnyToolDefinition | undefined;
}

/**
 * Validates a list of tools (each definition, and that names are unique: a model cannot tell
 * two tools of the same name apart) and indexes them by name. Throws `ConfigError` on a
 * duplicate name and `ToolError` on an invalid definition.
 *
 * @example
 * ```ts
 * import { createToolRegistry } from 'loopkeeper/tools';
 * import { defineTool } from 'loopkeeper';
 *
 * const echo = defineTool({
 *   name: 'echo',
 *   description: 'Echoes its input.',
 *   parameters: { type: 'object', properties: { text: { type: 'string' } } },
 *   execute: async ({ text }: { text: string }) => text,
 * });
 * const registry = createToolRegistry([echo]);
 * console.log(registry.names, registry.get('echo')?.description);
 * ```
 */
export function createToolRegistry(tools: readonly AnyToolDefinition[]): ToolRegistry {
  if (!Array.isArray(tools)) {
    throw new ConfigError('tools must be an array of tool definitions.', {
      code: 'config_invalid_tools',
    });
  }
  const byName = new Map<string, AnyToolDefinition>();
  for (const tool of tools) {
    assertValidToolDefinition(tool);
    if (byName.has(tool.name)) {
      throw new ConfigError(
        `Two tools are named "${tool.name}"; tool names must be unique so the model can tell them apart.`,
        { code: 'config_duplicate_tool_name' },
      );
    }
    byName.set(tool.name, tool);
  }
  const list = Object.freeze([...tools]);
  return Object.freeze({
    tools: list,
    names: Object.freeze([...byName.keys()]),
    specs: Object.freeze(list.map(toToolSpec)),
    get: (name: string) => byName.get(name),
  });
}

/**
 * The model-facing description of each tool (name, description, JSON Schema parameters).
 *
 * @example
 * ```ts
 * import { toolSpecs } from 'loopkeeper/tools';
 * import { defineTool } from 'loopkeeper';
 *
 * const ping = defineTool({
 *   name: 'ping',
 *   description: 'Answers pong.',
 *   parameters: { type: 'object', properties: {} },
 *   execute: async () => 'pong',
 * });
 * console.log(toolSpecs([ping])); // what the model is told: name, description, parameters
 * ```
 */
export function toolSpecs(tools: readonly AnyToolDefinition[]): ToolSpec[] {
  return [...createToolRegistry(tools).specs];
}

function toToolSpec(tool: AnyToolDefinition): ToolSpec {
  return { name: tool.name, description: tool.description, parameters: tool.parameters };
}
