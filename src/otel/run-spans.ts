import { type Context, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import type { CompactionReason, SerializedError } from '../vocabulary/index.js';
import { ERROR_TYPE } from './gen-ai-attributes.js';

/** The open spans of one run, and what later events of the run need to know. */
export interface RunSpans {
  readonly span: Span;
  /** The context whose active span is the run's `invoke_agent` span. */
  readonly context: Context;
  chat: Span | undefined;
  chatHasDelta: boolean;
  readonly tools: Map<string, Span>;
  compaction: Span | undefined;
  /** The reason of the latest compaction, which an emergency prune that follows it shares. */
  compactionReason: CompactionReason | undefined;
  emergency: Span | undefined;
  readonly mutations: Map<string, Span>;
  inputTokens: number;
  outputTokens: number;
  requestModel: string | undefined;
}

export function createRunSpans(span: Span, parent: Context): RunSpans {
  return {
    span,
    context: trace.setSpan(parent, span),
    chat: undefined,
    chatHasDelta: false,
    tools: new Map(),
    compaction: undefined,
    compactionReason: undefined,
    emergency: undefined,
    mutations: new Map(),
    inputTokens: 0,
    outputTokens: 0,
    requestModel: undefined,
  };
}

/** The span the next child of the run nests under: an open compaction, else the run. */
export function parentContextOf(run: RunSpans): Context {
  return run.compaction === undefined ? run.context : trace.setSpan(run.context, run.compaction);
}

/** Records a typed error the way the conventions ask: `error.type` and an error status. */
export function failSpan(span: Span, error: SerializedError): void {
  span.setAttribute(ERROR_TYPE, error.code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: `${error.name}: ${error.message}` });
}

/** Every child span still open, e.g. when an abort ends the run in the middle of a step. */
export function openChildren(run: RunSpans): Span[] {
  return [
    ...(run.chat === undefined ? [] : [run.chat]),
    ...run.tools.values(),
    ...run.mutations.values(),
    ...(run.emergency === undefined ? [] : [run.emergency]),
    ...(run.compaction === undefined ? [] : [run.compaction]),
  ];
}
