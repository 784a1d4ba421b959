import {
  createTokenCounter,
  dropReasoning,
  fromChatMessages,
  keepRecent,
  pipeline,
  pruneToolResults,
  validateTranscript,
} from 'loopkeeper';

// Any OpenAI-format transcript; here a tiny one with a large tool output.
const transcript = fromChatMessages([
  { role: 'user', content: 'List the logs.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'app.log\n'.repeat(2_000) },
  { role: 'assistant', content: 'There are many app.log entries.' },
  { role: 'user', content: 'Thanks. Which one is newest?' },
]);

const tokens = await createTokenCounter({ encoding: 'o200k_base' });
const strategy = pipeline(
  dropReasoning({ keepLastTurn: true }),
  pruneToolResults({ protectRecentTokens: 200, minSavingsTokens: 100 }),
  keepRecent({ tokens: 2_000, preserve: ['context'] }),
);
const result = await strategy.apply(
  { transcript, reason: 'manual', budget: { maxTokens: 4_000, targetTokens: 2_000 } },
  { tokens, signal: AbortSignal.timeout(10_000) },
);
console.log(
  tokens.count(transcript),
  '->',
  tokens.count(result.transcript),
  validateTranscript(result.transcript),
);
