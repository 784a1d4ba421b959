import { createAgentLoop, defineTool } from 'loopkeeper';
import { streamTurn } from 'loopkeeper/runtime';
import { ScriptedModel } from 'loopkeeper/testing';

const indexFiles = defineTool({
  name: 'index_files',
  description: 'Indexes the project files.',
  parameters: { type: 'object', properties: {} },
  execute: (_args, { reportProgress }) => {
    for (const file of ['README.md', 'src/index.ts']) reportProgress({ file });
    return '2 files indexed';
  },
});
const loop = createAgentLoop({
  model: new ScriptedModel({
    turns: [{ toolCalls: [{ name: 'index_files', arguments: {} }] }, { text: 'Indexed 2 files.' }],
  }),
  tools: [indexFiles],
});
loop.start();

let answer = '';
for await (const part of streamTurn(loop, 'Index the project.')) {
  if (part.type === 'text_delta')
    answer += part.delta; // or process.stdout.write(part.delta)
  else if (part.type === 'tool_progress')
    console.log(`${part.toolName}: ${JSON.stringify(part.data)}`);
  else if (part.type === 'finish') console.log(`${part.result.outcome}: ${answer}`);
}
loop.stop();
