/**
 * Reopen child for the AI SDK adapter: runs (or resumes) one run on a FileSessionStore with
 * `aiSdkModel` over `@ai-sdk/anthropic`, pointed at a fake Anthropic server. The run's one tool
 * needs approval, so a first process stops at the pause and a second one, reopening the session
 * from the log alone, approves and sends the next request of the same tool turn.
 *
 * Prints JSON lines: `{"type":"paused"}` (and exits when told not to approve) or
 * `{"type":"done","outcome":...,"text":...}`.
 *
 * Usage: node child-ai-sdk-session.mjs <directory> <sessionId> <baseURL> <approve: yes|no>
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import {
  decide,
  defineTool,
  FileSessionStore,
  openAgentLoop,
  resumeRun,
  runTurn,
} from 'loopkeeper';
import { aiSdkModel } from 'loopkeeper/ai-sdk';
import type { TokenCounter } from 'loopkeeper/tokens';

const [directory, sessionId, baseURL, approve = 'no'] = process.argv.slice(2);
if (directory === undefined || sessionId === undefined || baseURL === undefined) {
  process.stderr.write('usage: child-ai-sdk-session <directory> <sessionId> <baseURL> <approve>\n');
  process.exit(2);
}
const report = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

/** A rough count is enough here: the run has no compactor, and the real encoding costs 0.5 s. */
const tokens: TokenCounter = {
  encoding: 'o200k_base',
  countText: (text) => Math.ceil(text.length / 4),
  countItem: (item) => Math.ceil(JSON.stringify(item).length / 4) + 3,
  count: (items) =>
    items.reduce((sum, item) => sum + Math.ceil(JSON.stringify(item).length / 4) + 3, 0),
};

const anthropic = createAnthropic({ baseURL, apiKey: 'test-key' });
const loop = await openAgentLoop({
  model: aiSdkModel(anthropic('claude-test-4'), {
    stream: true,
    maxOutputTokens: 4096,
    providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } },
  }),
  tools: [
    defineTool({
      name: 'deploy',
      description: 'Deploys the release.',
      parameters: { type: 'object', properties: { version: { type: 'string' } } },
      needsApproval: true,
      execute: ({ version }: { version: string }) => `deployed ${version}`,
    }),
  ],
  store: new FileSessionStore({ directory }),
  sessionId,
  tokens,
});
loop.start();
let result = (await resumeRun(loop)) ?? (await runTurn(loop, 'Ship release 7.'));
if (result.outcome === 'awaiting_approval') {
  report({ type: 'paused', pending: result.pending.map((call) => call.callId) });
  if (approve !== 'yes') {
    loop.stop();
    await loop.session.store.close();
    process.exit(0);
  }
  result = await decide(
    loop,
    result.pending.map((call) => ({ callId: call.callId, approved: true })),
  );
}
report({ type: 'done', outcome: result.outcome, text: result.text ?? null });
loop.stop();
await loop.session.store.close();
// The SDK's fetch keeps its connection alive for a few seconds; nothing is left to wait for.
process.exit(0);
