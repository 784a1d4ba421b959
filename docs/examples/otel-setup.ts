// npm install @opentelemetry/api @opentelemetry/sdk-trace-base @opentelemetry/context-async-hooks
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createAgentLoop, runTurn } from 'loopkeeper';
import { createGenAiTracing } from 'loopkeeper/otel';
import { ScriptedModel } from 'loopkeeper/testing';

// sdk-trace-base 2.x: processors go to the constructor, and the provider has no register():
// set it, and a context manager (so spans nest across awaits), through @opentelemetry/api.
const provider = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())],
});
trace.setGlobalTracerProvider(provider);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

const tracing = createGenAiTracing({ tracer: trace.getTracer('my-agent'), agentName: 'helper' });
const loop = createAgentLoop({
  model: tracing.wrapModel(new ScriptedModel({ turns: [{ text: 'hi' }] })),
});
tracing.attach(loop);
loop.start();
await runTurn(loop, 'hello'); // prints the `chat scripted-model` span, then `invoke_agent helper`
loop.stop();
await provider.shutdown(); // flushes what is still buffered (with a BatchSpanProcessor)
