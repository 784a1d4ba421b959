// npm install @statelyai/inspect   (an optional peer dependency of loopkeeper)
import { once } from 'node:events';
import { createWebSocketInspector } from '@statelyai/inspect';
import { createInspectorServer } from '@statelyai/inspect/server';
import { createAgentLoop, runTurn } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';

// The relay serves a page that embeds the Stately inspector and forwards events to it.
// Any free port works: set INSPECTOR_PORT when 4242 is taken.
const port = Number(process.env['INSPECTOR_PORT'] ?? 4242);
const server = createInspectorServer({ port, autoOpen: false });
const inspector = createWebSocketInspector({ url: `ws://localhost:${port}` });

const loop = createAgentLoop({
  model: new ScriptedModel({ turns: [{ text: 'Hello from an inspected loop.' }] }),
  inspect: inspector.inspect,
});
loop.start();
await runTurn(loop, 'Hello?');

console.log(`Open http://localhost:${port} in a browser to see the loop; Ctrl+C stops.`);
// The relay keeps what it received for viewers that connect later: keep it up until you are done.
await once(process, 'SIGINT');
loop.stop();
inspector.stop();
server.stop();
