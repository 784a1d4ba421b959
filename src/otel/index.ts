/**
 * The `loopkeeper/otel` entry: records each run as OpenTelemetry spans by the GenAI semantic
 * conventions. Needs the optional peer dependency `@opentelemetry/api`.
 */

export {
  createGenAiTracing,
  type GenAiTracing,
  type GenAiTracingOptions,
  type TracedLoop,
} from './create-gen-ai-tracing.js';
export * from './gen-ai-attributes.js';
export { type GenAiMessage, toGenAiMessages } from './gen-ai-messages.js';
export * from './loopkeeper-attributes.js';
export type { TracedSession } from './recorder-settings.js';
