import { createAgentLoop, openAIChatModel } from 'loopkeeper';
import { streamTurn } from 'loopkeeper/runtime';

const loop = createAgentLoop({ model: openAIChatModel({ model: 'gpt-4o-mini', stream: true }) });
loop.start();
// Ctrl+C aborts the run; the stream then ends with the aborted result.
process.once('SIGINT', () => loop.send({ type: 'abort' }));
for await (const part of streamTurn(loop, 'Summarize README.md')) {
  if (part.type === 'text_delta') process.stdout.write(part.delta);
  else if (part.type === 'tool_call_started') console.log(`\n[${part.toolName}]`);
  else if (part.type === 'finish') console.log(`\n${part.result.outcome}`);
}
loop.stop();
