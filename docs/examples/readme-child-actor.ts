// npm install xstate   (loopkeeper depends on it; import only packages you installed, as pnpm enforces)
import { createAgentLoopLogic } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';
import { createActor, sendTo, setup, spawnChild } from 'xstate';

const agent = createAgentLoopLogic({ model: new ScriptedModel({ turns: [{ text: 'On it.' }] }) });

// A host machine that owns the loop as a child actor and forwards tickets to it.
const host = setup({
  actors: { agentLoop: agent.logic },
  types: { events: {} as { type: 'ticket'; text: string } },
}).createMachine({
  entry: spawnChild('agentLoop', { id: 'agent', systemId: 'agent', input: agent.input }),
  on: {
    ticket: {
      actions: sendTo('agent', ({ event }) => ({
        type: 'user.message' as const,
        content: event.text,
      })),
    },
  },
});

const actor = createActor(host).start();
actor.system
  .get('agent')
  ?.on('RunFinished', (event: { outcome: string }) =>
    console.log('agent finished:', event.outcome),
  );
actor.send({ type: 'ticket', text: 'Reset my password' });
