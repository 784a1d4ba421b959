import { createAgentLoop } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';

const model = new ScriptedModel({ turns: [{ text: 'ok' }] });
const loop = createAgentLoop({ model, inspect: (event) => console.log(event.type) });
loop.start();
