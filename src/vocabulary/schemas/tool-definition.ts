import * as v from 'valibot';
import { isRecord } from './describe-issues.js';

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
const MAX_TIMEOUT_MS = 2_147_483_647;
const timeout = `must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`;

/** A timeout Node's timers honour. */
export const TimeoutSchema = v.pipe(
  v.number(timeout),
  v.integer(timeout),
  v.minValue(1, timeout),
  v.maxValue(MAX_TIMEOUT_MS, timeout),
);

export const callable = v.custom<(...args: never[]) => unknown>(
  (value) => typeof value === 'function',
  'must be a function',
);

/** A tool definition; `parameters` must describe the arguments object a model passes. */
export const ToolDefinitionSchema = v.object({
  name: v.pipe(
    v.string(),
    v.regex(TOOL_NAME_PATTERN, 'must be 1 to 64 letters, digits, underscores or hyphens'),
  ),
  description: v.string(),
  parameters: v.object(
    {
      type: v.literal('object', "must be 'object', as models only pass an arguments object"),
      properties: v.optional(v.custom<object>(isRecord, 'must be an object')),
      required: v.optional(v.array(v.string(), 'must be an array of strings')),
    },
    'must be a JSON Schema object',
  ),
  timeoutMs: v.optional(TimeoutSchema),
  needsApproval: v.optional(v.union([v.boolean(), callable], 'must be true, false or a function')),
  idempotent: v.optional(v.boolean()),
  execute: callable,
});
