// npm install @opentelemetry/api   (an optional peer dependency of loopkeeper)
import { trace } from '@opentelemetry/api';
import { createAgentLoop, runTurn } from 'loopkeeper';
import { createGenAiTracing } from 'loopkeeper/otel';
import { ScriptedModel } from 'loopkeeper/testing';

// Spans go to the tracer provider you set up (docs/events.md shows one for sdk-trace-base 2.x).
const tracing = createGenAiTracing({ tracer: trace.getTracer('my-agent'), agentName: 'helper' });
const loop = createAgentLoop({
  // Wrapping the model runs each call inside its chat span, so HTTP spans nest under it.
  model: tracing.wrapModel(new ScriptedModel({ turns: [{ text: 'hi' }] })),
});
tracing.attach(loop);
loop.start();
await runTurn(loop, 'hello'); // one `invoke_agent helper` span with a `chat scripted-model` child
