import { createAnthropic } from '@ai-sdk/anthropic';
import { createAgentLoop, defineTool, runTurn } from 'loopkeeper';
import { aiSdkModel } from 'loopkeeper/ai-sdk';
import { startFakeAnthropicServer } from 'loopkeeper/testing';

// A fake Anthropic Messages API on 127.0.0.1: a signed thinking block and a tool call, then an answer.
const server = await startFakeAnthropicServer({
  replies: [
    {
      thinking: [{ thinking: 'Check the clock first.', signature: 'sig-123' }],
      toolCalls: [{ name: 'clock', input: {} }],
    },
    { text: 'It is noon.' },
  ],
});
const clock = defineTool({
  name: 'clock',
  description: 'Tells the time.',
  parameters: { type: 'object', properties: {} },
  execute: () => '12:00',
});
const anthropic = createAnthropic({ baseURL: server.url, apiKey: 'test' });
const loop = createAgentLoop({ model: aiSdkModel(anthropic('claude-test')), tools: [clock] });
loop.start();
console.log((await runTurn(loop, 'What time is it?')).text); // It is noon.
// The second request carried the thinking block back, signature and all.
const sent = JSON.stringify(server.requests[1]?.body?.['messages']);
console.log(sent.includes('"signature":"sig-123"')); // true
loop.stop();
await server.close();
