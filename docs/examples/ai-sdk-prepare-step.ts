import { openai } from '@ai-sdk/openai';
import { generateText, stepCountIs } from 'ai';
import { contextWindowTrigger, createCompactor } from 'loopkeeper';
import { aiSdkSummarizer, compactionPrepareStep } from 'loopkeeper/ai-sdk';

const compactor = createCompactor({
  trigger: contextWindowTrigger({ window: 128_000, outputReserve: 8_000 }),
  backend: aiSdkSummarizer({ model: openai('gpt-4o-mini') }), // or extractiveSummarizer()
});
const prepareStep = compactionPrepareStep({ compactor });
const model = openai('gpt-4o');
await generateText({ model, prompt: 'Audit the code', prepareStep, stopWhen: stepCountIs(200) });
