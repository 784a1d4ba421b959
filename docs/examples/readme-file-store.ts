import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSessionStore, openAgentLoop, runTurn } from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';

const directory = await mkdtemp(join(tmpdir(), 'sessions-'));

// First process: one JSONL file per session, appended with fsync, locked to one writer.
const store = new FileSessionStore({ directory });
const first = await openAgentLoop({
  model: new ScriptedModel({ turns: [{ text: 'Noted.' }] }),
  store,
  sessionId: 'support-42',
});
first.start();
await runTurn(first, 'My order number is 1234.');
first.stop();
await store.close();

// Later (or after a crash): the same session id resumes from the log alone.
const reopened = new FileSessionStore({ directory });
const second = await openAgentLoop({
  model: new ScriptedModel({ turns: [{ text: 'Your order is 1234.' }] }),
  store: reopened,
  sessionId: 'support-42',
});
console.log(second.session.items.length, 'items restored');
second.start();
await runTurn(second, 'What was my order number?');
second.stop();
await reopened.close();
