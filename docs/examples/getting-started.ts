import { createAgentLoop, defineTool, openAIChatModel, runTurn } from 'loopkeeper';
import { startFakeOpenAIServer } from 'loopkeeper/testing';

const server = await startFakeOpenAIServer({
  replies: [{ toolCalls: [{ name: 'get_time', arguments: {} }] }, { text: 'It is noon.' }],
});
const getTime = defineTool({
  name: 'get_time',
  description: 'The current time.',
  parameters: { type: 'object', properties: {} },
  execute: async () => '12:00',
});
const model = openAIChatModel({ baseURL: server.url, apiKey: 'any', model: 'gpt-4o-mini' });
const loop = createAgentLoop({ model, tools: [getTime] });
loop.start();
const finished = await runTurn(loop, 'What time is it?');
console.log(`${finished.outcome} in ${finished.steps} steps: ${finished.text}`);
loop.stop();
await server.close();
