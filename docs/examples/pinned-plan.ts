import { createAgentLoop } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';
import { updatePlanTool } from 'loopkeeper/tools';

const loop = createAgentLoop({
  model: new ScriptedModel({ turns: [{ text: 'On it.' }] }),
  // Opt-in: the model may set the plan itself with `update_plan`.
  tools: [updatePlanTool()],
});
loop.start();

// The host pins a plan; it is logged when the loop is idle and survives every compaction.
loop.send({
  type: 'plan.update',
  explanation: 'The refund needs the booking first.',
  plan: [
    { step: 'Find booking ABC123', status: 'completed' },
    { step: 'Refund 120 EUR', status: 'in_progress' },
  ],
});
