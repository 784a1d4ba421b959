// npm install @ai-sdk/anthropic   (the AI SDK is an optional peer dependency of loopkeeper)
import { createAnthropic } from '@ai-sdk/anthropic';
import { createAgentLoop, runTurn } from 'loopkeeper';
import { aiSdkModel } from 'loopkeeper/ai-sdk';

// Any AI SDK provider: @ai-sdk/anthropic, @ai-sdk/google, @ai-sdk/amazon-bedrock, ollama, ...
const anthropic = createAnthropic({ apiKey: process.env['ANTHROPIC_API_KEY'] ?? '' });
const loop = createAgentLoop({
  model: aiSdkModel(anthropic('claude-sonnet-4-5'), {
    stream: true,
    maxOutputTokens: 8_000,
    // Signed thinking blocks are logged and sent back unchanged, also after a restart.
    providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 4_000 } } },
  }),
  instructions: 'You are a careful assistant.',
});
loop.start();
console.log((await runTurn(loop, 'Plan a three-step release.')).text);
loop.stop();
