import { describeAdapterContract } from './adapter-contract.js';
import { aiSdkAnthropicHarness, aiSdkMockHarness } from './ai-sdk-harnesses.js';
import { openAIChatHarness, openAIResponsesHarness, scriptedHarness } from './harnesses.js';

// Every model adapter passes the same contract; adding one is a harness in harnesses.ts and a line here.
describeAdapterContract(openAIChatHarness);
describeAdapterContract(openAIResponsesHarness);
describeAdapterContract(scriptedHarness);
describeAdapterContract(aiSdkMockHarness);
describeAdapterContract(aiSdkAnthropicHarness);
