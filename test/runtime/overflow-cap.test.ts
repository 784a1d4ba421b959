import {
  createAgentLoop,
  createCompactor,
  defineTool,
  openAIChatModel,
  runTurn,
  tokenBudgetTrigger,
  validateTranscript,
} from 'loopkeeper';
import { type FakeOpenAIServer, fakeFaults, startFakeOpenAIServer } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordTelemetry, sharedTokenCounter } from '../support/loop-harness.js';

let tokens: TokenCounter;
let server: FakeOpenAIServer | undefined;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const report = defineTool({
  name: 'report',
  description: 'Returns a long report.',
  parameters: { type: 'object', properties: { part: { type: 'integer' } }, required: ['part'] },
  execute: ({ part }: { part: number }) =>
    `report part ${part}\n${'measurement row\n'.repeat(1_200)}`,
});

describe('a provider that refuses every request as too long', () => {
  it.each([1, 2, 3])(
    'cap %i: the loop compacts exactly cap times, prunes once, then ends with ContextOverflowError',
    async (cap) => {
      // Six earlier turns each leave a large tool output; then the provider refuses everything.
      const earlier = Array.from({ length: 6 }, (_, part) => [
        { toolCalls: [{ id: `call_${part}`, name: 'report', arguments: { part } }] },
        { text: `Read part ${part}.` },
      ]).flat();
      server = await startFakeOpenAIServer({
        replies: earlier,
        handler: () => fakeFaults.contextOverflow({ maxTokens: 1_000 }),
      });
      const loop = createAgentLoop({
        model: openAIChatModel({ baseURL: server.url, apiKey: 'test', model: 'gpt-test' }),
        tools: [report],
        // Our own trigger never fires: only the provider's refusals drive compaction.
        compactor: createCompactor({ trigger: tokenBudgetTrigger({ maxTokens: 1_000_000 }) }),
        tokens,
        maxConsecutiveCompactions: cap,
      });
      loop.start();
      for (let part = 0; part < 6; part += 1) {
        expect((await runTurn(loop, `read part ${part}`)).outcome).toBe('completed');
      }
      const requestsBefore = server.requests.length;
      const telemetry = recordTelemetry(loop);
      const finished = await runTurn(loop, 'summarize all parts');

      expect(finished.outcome).toBe('failed');
      expect(finished.error?.name).toBe('ContextOverflowError');
      const compactions = telemetry.filter((event) => event.type === 'CompactionFinished');
      expect(compactions).toHaveLength(cap);
      // Only the last may be ineffective (nothing left to shrink): it goes straight on to the
      // emergency prune without another request.
      const effective = compactions.filter(
        (event) => event.type === 'CompactionFinished' && event.effective,
      ).length;
      expect(effective).toBeGreaterThanOrEqual(cap - 1);
      expect(telemetry.filter((event) => event.type === 'EmergencyPruneApplied')).toHaveLength(1);
      // One request, one retry after each effective compaction, one after the emergency prune.
      expect(server.requests.length - requestsBefore).toBe(effective + 2);
      expect(validateTranscript(loop.session.items)).toEqual([]);
      loop.stop();
    },
  );
});
