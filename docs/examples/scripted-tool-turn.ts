import { createAgentLoop, defineTool, runTurn } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Current weather of a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: async ({ city }: { city: string }) => `Sunny and 21 °C in ${city}.`,
});

// One answer per model request: first two tool calls (run in parallel), then the final text.
const model = new ScriptedModel({
  turns: [
    {
      toolCalls: [
        { id: 'call_paris', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'call_rome', name: 'get_weather', arguments: { city: 'Rome' } },
      ],
    },
    { text: 'Both are sunny, 21 °C.' },
  ],
});

const loop = createAgentLoop({ model, tools: [getWeather] });
loop.start();
const finished = await runTurn(loop, 'Weather in Paris and Rome?');
loop.stop();

console.log(`${finished.outcome} in ${finished.steps} steps: ${finished.text}`);
for (const item of finished.itemsAdded) {
  if (item.kind === 'toolResult') console.log(`${item.callId} -> ${item.content}`);
}
