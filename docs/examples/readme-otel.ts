import { trace } from '@opentelemetry/api';
import { createAgentLoop, runTurn } from 'loopkeeper';
import { createGenAiTracing } from 'loopkeeper/otel';
import { ScriptedModel } from 'loopkeeper/testing';

// Spans go to the tracer provider your OpenTelemetry SDK registered.
const tracing = createGenAiTracing({ tracer: trace.getTracer('my-agent'), agentName: 'helper' });
const loop = createAgentLoop({
  // Wrapping the model runs each call inside its chat span, so HTTP spans nest under it.
  model: tracing.wrapModel(new ScriptedModel({ turns: [{ text: 'hi' }] })),
});
tracing.attach(loop);
loop.start();
await runTurn(loop, 'hello'); // one `invoke_agent helper` span with a `chat scripted-model` child
