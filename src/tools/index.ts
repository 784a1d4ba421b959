/** The `loopkeeper/tools` entry: tool definitions, the registry and parallel tool execution. */

export { TOOL_NAME_PATTERN } from '../vocabulary/schemas/tool-definition.js';
export { hashToolArguments } from './arguments-hash.js';
export { defineTool } from './define-tool.js';
export {
  createAbortedToolResults,
  type ExecuteToolCallsOptions,
  executeToolCalls,
  type ToolCallFinishedInfo,
  type ToolCallProgressInfo,
  type ToolCallStartedInfo,
} from './execute-tool-calls.js';
export { createToolRegistry, type ToolRegistry, toolSpecs } from './tool-registry.js';
export type {
  AnyToolDefinition,
  ToolApprovalContext,
  ToolDefinition,
  ToolExecutionOptions,
} from './types.js';
export { updatePlanTool } from './update-plan-tool.js';
