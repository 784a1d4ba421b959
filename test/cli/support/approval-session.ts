import {
  type AgentLoopActor,
  createAgentLoop,
  decide,
  defineTool,
  FileSessionStore,
  runTurn,
  type SessionEvent,
  type TelemetryEvent,
} from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';
import { expect } from 'vitest';
import { recordTelemetry, sharedTokenCounter } from '../../support/loop-harness.js';

/** Needs a person's yes for every call. */
export const deployTool = defineTool<{ service: string }>({
  name: 'deploy',
  description: 'Deploys a service.',
  parameters: {
    type: 'object',
    properties: { service: { type: 'string' } },
    required: ['service'],
  },
  needsApproval: true,
  execute: async ({ service }) => `deployed ${service}`,
});

/** Runs without asking. */
export const statusTool = defineTool({
  name: 'status',
  description: 'Reports the status of every service.',
  parameters: { type: 'object', properties: {} },
  execute: async () => 'all services up',
});

export interface ApprovalSession {
  readonly sessionId: string;
  /** The whole log as the file store reads it back. */
  readonly events: readonly SessionEvent[];
  /** What the loop emitted while it recorded the log. */
  readonly telemetry: readonly TelemetryEvent[];
  /** Every state the live loop was in, as `running.inferring` paths, in order. */
  readonly states: readonly string[];
}

/** Records the state path of every snapshot of a loop (`idle`, `running.inferring`, ...). */
export function recordStates(loop: AgentLoopActor): string[] {
  const states: string[] = [];
  loop.subscribe((snapshot) => {
    const value = snapshot.value as string | Record<string, string>;
    const path =
      typeof value === 'string'
        ? value
        : Object.entries(value)
            .map(([parent, child]) => `${parent}.${child}`)
            .join();
    if (states.at(-1) !== path) states.push(path);
  });
  return states;
}

/**
 * Records a session to a file log in `directory`: run 1 asks for two deploys and a status call,
 * one deploy is approved and one denied (with a reason), and it completes; run 2 asks for one
 * more deploy and is left waiting for approval (the loop stops there, as a process would).
 */
export async function recordApprovalSession({
  directory,
  sessionId = 'approvals',
}: {
  readonly directory: string;
  readonly sessionId?: string;
}): Promise<ApprovalSession> {
  const tokens = await sharedTokenCounter();
  const store = new FileSessionStore({ directory });
  const loop: AgentLoopActor = createAgentLoop({
    model: new ScriptedModel({
      tokens,
      streamDeltas: false,
      turns: [
        {
          toolCalls: [
            { id: 'call_web', name: 'deploy', arguments: { service: 'web' } },
            { id: 'call_db', name: 'deploy', arguments: { service: 'db' } },
            { id: 'call_status', name: 'status', arguments: {} },
          ],
        },
        { text: 'Web deployed; the database deploy was not approved.' },
        { toolCalls: [{ id: 'call_api', name: 'deploy', arguments: { service: 'api' } }] },
      ],
    }),
    tools: [deployTool, statusTool],
    tokens,
    store,
    sessionId,
  });
  const telemetry = recordTelemetry(loop);
  const states = recordStates(loop);
  loop.start();
  const first = await runTurn(loop, 'Deploy web and db.');
  expect(first.outcome).toBe('awaiting_approval');
  const second = await decide(loop, { callId: 'call_web', approved: true });
  expect(second.outcome).toBe('awaiting_approval');
  const done = await decide(loop, { callId: 'call_db', approved: false, reason: 'not today' });
  expect(done.outcome).toBe('completed');
  const paused = await runTurn(loop, 'Now deploy api.');
  expect(paused.outcome).toBe('awaiting_approval');
  loop.stop();
  await store.close();
  const reader = new FileSessionStore({ directory });
  const events: SessionEvent[] = [];
  for await (const event of reader.read(sessionId)) events.push(event);
  await reader.close();
  return { sessionId, events, telemetry, states };
}
