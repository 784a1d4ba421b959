import {
  contextWindowTrigger,
  createAgentLoop,
  createCompactor,
  defineTool,
  extractiveSummarizer,
  openAIChatModel,
  runTurn,
} from 'loopkeeper';

const readFile = defineTool({
  name: 'read_file',
  description: 'Reads a text file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  execute: async ({ path }: { path: string }) =>
    (await import('node:fs/promises')).readFile(path, 'utf8'),
});
const loop = createAgentLoop({
  model: openAIChatModel({ apiKey: process.env['OPENAI_API_KEY'] ?? '', model: 'gpt-4o-mini' }),
  tools: [readFile],
  instructions: 'You are a careful coding assistant.',
  compactor: createCompactor({
    trigger: contextWindowTrigger({ window: 128_000 }),
    backend: extractiveSummarizer(),
  }),
});
loop.on('CompactionFinished', (event) =>
  console.log(`compacted ${event.tokensBefore} -> ${event.tokensAfter}`),
);
loop.start();
const finished = await runTurn(loop, 'Summarize README.md');
if (finished.outcome === 'completed') console.log(finished.text, finished.usage);
// A failed run says why: a refused API key, a model error, a context overflow, ...
else console.error(`${finished.outcome}: ${finished.error?.message ?? 'no error recorded'}`);
