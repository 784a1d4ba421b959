import { createAgent } from 'langchain';
import { contextWindowTrigger, createCompactor, extractiveSummarizer } from 'loopkeeper';
import { compactionMiddleware } from 'loopkeeper/langchain';

const compactor = createCompactor({
  trigger: contextWindowTrigger({ window: 128_000, outputReserve: 8_000 }),
  backend: extractiveSummarizer(),
});
const agent = createAgent({
  model: 'openai:gpt-4o',
  tools: [],
  middleware: [compactionMiddleware({ compactor })],
});
await agent.invoke({ messages: [{ role: 'user', content: 'Audit the repository' }] });
