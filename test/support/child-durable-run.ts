/**
 * Crash-and-resume child: runs (or resumes) one scripted run on a FileSessionStore and can kill
 * itself with SIGKILL at a chosen point. The run calls `read_config` (idempotent) and
 * `send_email` (not idempotent) in parallel, then `deploy` (needs approval; idempotent through
 * its call id, as a real deploy API with an idempotency key), then answers.
 *
 * Every tool execution appends a line to `<effects>`: `{tool, callId, approved}`, where
 * `approved` says whether the log held an approval for the call when it ran. Prints JSON lines:
 * `{"type":"acked","seq":n}` after each durable append, then `{"type":"paused"}` (when it does not
 * approve, it exits there) or `{"type":"done","outcome":...}`.
 *
 * Usage: node child-durable-run.mjs <directory> <sessionId> <effects> <kill> <approve: yes|no>
 * where <kill> is `none`, `before:<n>` / `after:<n>` (the n-th append of this process),
 * `tool:<name>` (inside the tool, after its effect is written) or `waiting` (at the pause).
 */
import { appendFileSync } from 'node:fs';
import {
  decide,
  defineTool,
  FileSessionStore,
  openAgentLoop,
  resumeRun,
  runTurn,
  type SessionStore,
} from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';

const [directory, sessionId, effects, kill = 'none', approve = 'no'] = process.argv.slice(2);
if (directory === undefined || sessionId === undefined || effects === undefined) {
  process.stderr.write(
    'usage: child-durable-run <directory> <sessionId> <effects> <kill> <approve>\n',
  );
  process.exit(2);
}

const report = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
};

/** Counts this process's appends and dies before or after the chosen one. */
function killingStore(store: SessionStore): SessionStore {
  let appends = 0;
  return {
    read: (id, options) => store.read(id, options),
    list: () => store.list(),
    close: () => store.close(),
    async append(id, events, options) {
      appends += 1;
      if (kill === `before:${appends}`) die();
      const written = await store.append(id, events, options);
      report({ type: 'acked', seq: written.at(-1)?.seq ?? 0 });
      if (kill === `after:${appends}`) die();
      return written;
    },
  };
}

/** A rough count is enough here: the run has no compactor, and the real encoding costs 0.5 s. */
const tokens: TokenCounter = {
  encoding: 'o200k_base',
  countText: (text) => Math.ceil(text.length / 4),
  countItem: (item) => Math.ceil(JSON.stringify(item).length / 4) + 3,
  count: (items) =>
    items.reduce((sum, item) => sum + Math.ceil(JSON.stringify(item).length / 4) + 3, 0),
};

let loop: Awaited<ReturnType<typeof openAgentLoop>> | undefined;
function effect(tool: string, callId: string): void {
  const approved = loop?.session.progress.decision(callId)?.approved === true;
  appendFileSync(effects as string, `${JSON.stringify({ tool, callId, approved })}\n`);
  if (kill === `tool:${tool}`) die();
}
const parameters = { type: 'object', properties: {} } as const;
const tools = [
  defineTool({
    name: 'read_config',
    description: 'Reads the release config.',
    parameters,
    idempotent: true,
    execute: (_args, { callId }) => {
      effect('read_config', callId);
      return 'release: 7';
    },
  }),
  defineTool({
    name: 'send_email',
    description: 'Tells the team.',
    parameters,
    execute: (_args, { callId }) => {
      effect('send_email', callId);
      return 'sent';
    },
  }),
  defineTool({
    name: 'deploy',
    description: 'Deploys the release.',
    parameters,
    needsApproval: true,
    idempotent: true,
    execute: (_args, { callId }) => {
      effect('deploy', callId);
      return 'deployed 7';
    },
  }),
];

/** Answers from the transcript alone, so a resumed process answers as the first would have. */
const model = new ScriptedModel({
  tokens,
  script: (request) => {
    const answered = new Set(
      request.transcript.flatMap((item) => (item.kind === 'toolResult' ? [item.callId] : [])),
    );
    if (!answered.has('call_config')) {
      return {
        toolCalls: [
          { id: 'call_config', name: 'read_config', arguments: {} },
          { id: 'call_email', name: 'send_email', arguments: {} },
        ],
      };
    }
    if (!answered.has('call_deploy')) {
      return { toolCalls: [{ id: 'call_deploy', name: 'deploy', arguments: {} }] };
    }
    return { text: 'Release 7 is out.' };
  },
});

loop = await openAgentLoop({
  model,
  tools,
  store: killingStore(new FileSessionStore({ directory })),
  sessionId,
  tokens,
});
loop.start();
const resumed = await resumeRun(loop);
if (resumed === null && loop.session.runs > 0) {
  // The run finished before the last process died (after its final append): nothing to do.
  report({ type: 'done', outcome: 'finished-before' });
  loop.stop();
  await loop.session.store.close();
  process.exit(0);
}
let result = resumed ?? (await runTurn(loop, 'Ship release 7.'));
while (result.outcome === 'awaiting_approval') {
  report({ type: 'paused', pending: result.pending.map((call) => call.callId) });
  if (kill === 'waiting') die();
  if (approve !== 'yes') {
    await loop.session.store.close();
    process.exit(0);
  }
  result = await decide(
    loop,
    result.pending.map((call) => ({ callId: call.callId, approved: true })),
  );
}
report({ type: 'done', outcome: result.outcome, runId: result.runId });
loop.stop();
await loop.session.store.close();
