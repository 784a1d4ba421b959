import { createWebSocketInspector } from '@statelyai/inspect';
import { createInspectorServer } from '@statelyai/inspect/server';
import { createAgentLoop, runTurn } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';

// The relay serves a page that embeds the Stately inspector and forwards events to it.
const server = createInspectorServer({ port: 8080, autoOpen: false });
const inspector = createWebSocketInspector({ url: 'ws://localhost:8080' });

const loop = createAgentLoop({
  model: new ScriptedModel({ turns: [{ text: 'Hello from an inspected loop.' }] }),
  inspect: inspector.inspect,
});
loop.start();
await runTurn(loop, 'Hello?');

console.log('Open http://localhost:8080 in a browser to see the loop.');
// When done:
loop.stop();
inspector.stop();
server.stop();
