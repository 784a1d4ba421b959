import { decide, FileSessionStore, openAgentLoop, pendingApprovals, resumeRun } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';

// A new process, after the one that ran the session stopped.
const loop = await openAgentLoop({
  model: new ScriptedModel({ turns: [{ text: 'Carried on.' }] }),
  store: new FileSessionStore({ directory: './sessions' }),
  sessionId: 'release-7',
});
console.log(pendingApprovals(loop)); // what the stopped run waits for, read from the log
loop.start();
let result = await resumeRun(loop);
while (result?.outcome === 'awaiting_approval') {
  result = await decide(
    loop,
    result.pending.map((call) => ({ callId: call.callId, approved: true })),
  );
}
console.log(result?.outcome ?? 'nothing to resume');
