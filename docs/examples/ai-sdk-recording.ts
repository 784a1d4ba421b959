import { openai } from '@ai-sdk/openai';
import { generateText, stepCountIs } from 'ai';
import { contextWindowTrigger, createCompactor, FileSessionStore } from 'loopkeeper';
import { compactionPrepareStep } from 'loopkeeper/ai-sdk';

const prepareStep = compactionPrepareStep({
  compactor: createCompactor({ trigger: contextWindowTrigger({ window: 128_000 }) }),
  store: new FileSessionStore({ directory: './sessions' }),
  sessionId: 'repo-audit',
});
await generateText({
  model: openai('gpt-4o'),
  prompt: 'Audit the repository',
  stopWhen: stepCountIs(200),
  prepareStep,
  onFinish: prepareStep.onFinish, // records the last step and the end of the run
});
