import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  decide,
  defineTool,
  FileSessionStore,
  openAgentLoop,
  pendingApprovals,
  resumeRun,
  runTurn,
} from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';

const directory = await mkdtemp(join(tmpdir(), 'sessions-'));
const refund = defineTool({
  name: 'refund',
  description: 'Refunds an order.',
  parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
  needsApproval: true, // or a function of the arguments
  execute: async ({ order }: { order: string }) => `refunded ${order}`,
});
const model = () =>
  new ScriptedModel({
    script: ({ transcript }) =>
      transcript.at(-1)?.kind === 'toolResult'
        ? { text: 'The refund is done.' }
        : { toolCalls: [{ id: 'call_1', name: 'refund', arguments: { order: '1234' } }] },
  });

// First process: the run pauses before the tool runs, and the process goes away.
const store = new FileSessionStore({ directory });
const first = await openAgentLoop({
  model: model(),
  tools: [refund],
  store,
  sessionId: 'support-7',
});
first.start();
const paused = await runTurn(first, 'Please refund order 1234.');
console.log(
  paused.outcome,
  paused.pending.map((call) => call.arguments),
); // awaiting_approval
first.stop();
await store.close();

// Later, another process: the waiting run is read from the log, decided, and finished.
const reopened = new FileSessionStore({ directory });
const second = await openAgentLoop({
  model: model(),
  tools: [refund],
  store: reopened,
  sessionId: 'support-7',
});
console.log(pendingApprovals(second).map((call) => call.toolName)); // [ 'refund' ]
second.start();
await resumeRun(second); // waits again where the first process stopped
const done = await decide(second, { callId: 'call_1', approved: true });
console.log(done.outcome, done.text); // completed The refund is done.
second.stop();
await reopened.close();
