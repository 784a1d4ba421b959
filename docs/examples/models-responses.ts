import { createAgentLoop, runTurn } from 'loopkeeper';
import { openAIResponsesModel } from 'loopkeeper/model';

// Stateless by default: store: false, reasoning comes back encrypted and is sent back as is.
const model = openAIResponsesModel({
  apiKey: process.env['OPENAI_API_KEY'] ?? '',
  model: 'gpt-5-mini',
  reasoning: { effort: 'low', summary: 'auto' },
  stream: true,
});
const loop = createAgentLoop({ model, instructions: 'Be brief.' });
loop.start();
const finished = await runTurn(loop, 'Name three prime numbers.');
console.log(finished.outcome, finished.text);
loop.stop();
