import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** A tracer whose finished spans land in memory, for one test. */
export function memoryTracer() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('loopkeeper-test') };
}

/**
 * Sets a real context manager for the test file, as a host's SDK does; without one
 * `context.with` does nothing and no span could nest inside a model call.
 */
export function useAsyncContext(): { disable(): void } {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  return { disable: () => context.disable() };
}

/** The finished spans as an indented tree of names, children in the order they started. */
export function spanTree(spans: readonly ReadableSpan[]): string[] {
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  const childrenOf = (parentId: string | undefined) =>
    spans
      .map((span, index) => ({ span, index }))
      .filter(({ span }) => {
        const parent = span.parentSpanContext?.spanId;
        return parentId === undefined
          ? parent === undefined || !ids.has(parent)
          : parent === parentId;
      })
      .sort(
        (a, b) =>
          startOf(a.span) - startOf(b.span) || endOf(a.span) - endOf(b.span) || a.index - b.index,
      )
      .map(({ span }) => span);
  const lines: string[] = [];
  const walk = (span: ReadableSpan, depth: number) => {
    lines.push(`${'  '.repeat(depth)}${span.name}`);
    for (const child of childrenOf(span.spanContext().spanId)) walk(child, depth + 1);
  };
  for (const root of childrenOf(undefined)) walk(root, 0);
  return lines;
}

export function spansNamed(spans: readonly ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name);
}

export function parentOf(
  spans: readonly ReadableSpan[],
  span: ReadableSpan,
): ReadableSpan | undefined {
  return spans.find(
    (candidate) => candidate.spanContext().spanId === span.parentSpanContext?.spanId,
  );
}

function startOf(span: ReadableSpan): number {
  return span.startTime[0] * 1e9 + span.startTime[1];
}
function endOf(span: ReadableSpan): number {
  return span.endTime[0] * 1e9 + span.endTime[1];
}
