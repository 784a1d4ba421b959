import { createAgentLoop, createTelemetryHub, runTurn } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';

const hub = createTelemetryHub({
  onListenerError: ({ error }) => console.warn('listener failed', error),
});
const loops = ['alice', 'bob'].map((user) =>
  createAgentLoop({
    model: new ScriptedModel({ turns: [{ text: `hi ${user}` }] }),
    sessionId: `chat-${user}`,
  }),
);
for (const loop of loops) hub.attach(loop);

hub.on('RunFinished', (event) =>
  console.log(`${event.sessionId}: ${event.outcome} in ${event.steps} step(s)`),
);
hub.on('*', (event) => {
  if (event.type === 'CompactionFinished')
    console.log(`${event.sessionId} compacted to ${event.tokensAfter}`);
});

for (const loop of loops) loop.start();
await Promise.all(loops.map((loop) => runTurn(loop, 'hello')));
hub.detachAll();
