import { createAgentLoop, decide, defineTool, runTurn } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys a service.',
  parameters: { type: 'object', properties: { service: { type: 'string' } } },
  needsApproval: true,
  execute: async ({ service }: { service: string }) => `deployed ${service}`,
});
const model = new ScriptedModel({
  turns: [
    { toolCalls: [{ id: 'call_1', name: 'deploy', arguments: { service: 'web' } }] },
    { text: 'Deployed.' },
  ],
});
const loop = createAgentLoop({ model, tools: [deploy] });
loop.start();

let result = await runTurn(loop, 'Ship the web service.');
while (result.outcome === 'awaiting_approval') {
  for (const call of result.pending) console.log(`approve ${call.toolName} ${call.arguments}?`);
  result = await decide(
    loop,
    result.pending.map((call) => ({ callId: call.callId, approved: true })),
  );
}
console.log(result.outcome, result.text); // completed Deployed.
