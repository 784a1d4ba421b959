import { openAIResponsesModel } from 'loopkeeper/model';

// Chained: OpenAI stores each response and a request sends only what was added since.
export const chained = openAIResponsesModel({
  apiKey: process.env['OPENAI_API_KEY'] ?? '',
  model: 'gpt-5-mini',
  conversation: 'previous_response_id',
});

// OpenAI compacts past 200,000 rendered tokens; the loop records it as a `provider` marker.
export const compacting = openAIResponsesModel({
  apiKey: process.env['OPENAI_API_KEY'] ?? '',
  model: 'gpt-5-mini',
  contextManagement: { compactThreshold: 200_000 },
});
