import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApprovalError,
  createAgentLoop,
  decide,
  defineTool,
  FileSessionStore,
  MemorySessionStore,
  openAgentLoop,
  pendingApprovals,
  resumeRun,
  runTurn,
  validateTranscript,
} from 'loopkeeper';
import { pendingApprovalsIn } from 'loopkeeper/runtime';
import type { TokenCounter } from 'loopkeeper/tokens';
import type { ToolDefinition } from 'loopkeeper/tools';
import { hashToolArguments } from 'loopkeeper/tools';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeServerModel, fakeServerPerTest } from '../support/fake-server.js';
import {
  readSession,
  recordTelemetry,
  sharedTokenCounter,
  whenIdle,
} from '../support/loop-harness.js';

let tokens: TokenCounter;
beforeAll(async () => {
  tokens = await sharedTokenCounter();
});

const server = fakeServerPerTest();
let directory: string | undefined;
afterEach(async () => {
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});

/** A deploy tool that needs approval and counts how often it really ran. */
function deployTool(
  runs: string[],
  needsApproval: ToolDefinition<{ service: string }>['needsApproval'] = true,
) {
  return defineTool({
    name: 'deploy',
    description: 'Deploys a service.',
    parameters: {
      type: 'object',
      properties: { service: { type: 'string' } },
      required: ['service'],
    },
    needsApproval,
    execute: async ({ service }: { service: string }) => {
      runs.push(service);
      return `deployed ${service}`;
    },
  });
}

const status = defineTool({
  name: 'status',
  description: 'Reads the status.',
  parameters: { type: 'object', properties: {} },
  execute: async () => 'all green',
});

function scriptDeploys(services: readonly string[], withStatus = false) {
  server().enqueue(
    ...[
      {
        toolCalls: [
          ...services.map((service, index) => ({
            id: `call_${index}`,
            name: 'deploy',
            arguments: { service },
          })),
          ...(withStatus ? [{ id: 'call_status', name: 'status', arguments: {} }] : []),
        ],
      },
      { text: 'Finished.' },
    ],
  );
}

describe('tool approval through the loop (real SDK, fake server)', () => {
  it('pauses with the pending calls, runs an approved call once with the approved arguments, and completes', async () => {
    scriptDeploys(['web'], true);
    const runs: string[] = [];
    const store = new MemorySessionStore();
    const loop = createAgentLoop({
      model: fakeServerModel(server()),
      tools: [deployTool(runs), status],
      store,
      tokens,
    });
    const telemetry = recordTelemetry(loop);
    loop.start();
    const paused = await runTurn(loop, 'Deploy web.');
    expect(paused.outcome).toBe('awaiting_approval');
    expect(paused.pending).toEqual([
      {
        callId: 'call_0',
        toolName: 'deploy',
        arguments: '{"service":"web"}',
        argumentsHash: hashToolArguments('{"service":"web"}'),
      },
    ]);
    expect(loop.getSnapshot().matches({ running: 'awaitingApproval' })).toBe(true);
    // Nothing ran while waiting, not even the call that needs no approval.
    expect(runs).toEqual([]);
    expect(server().requests).toHaveLength(1);
    expect(pendingApprovals(loop).map((call) => call.callId)).toEqual(['call_0']);

    const done = await decide(loop, { callId: 'call_0', approved: true });
    expect(done).toMatchObject({ outcome: 'completed', text: 'Finished.', pending: [] });
    expect(runs).toEqual(['web']);
    expect(validateTranscript(loop.session.items)).toEqual([]);
    const types = telemetry.map((event) => event.type);
    expect(types.filter((type) => type === 'ApprovalRequested')).toHaveLength(1);
    expect(telemetry.find((event) => event.type === 'ApprovalDecided')).toMatchObject({
      callId: 'call_0',
      toolName: 'deploy',
      approved: true,
    });
    expect(types.indexOf('ApprovalDecided')).toBeLessThan(types.indexOf('ToolCallStarted'));
    const events = await readSession(store, loop.session.sessionId);
    expect(events.map((event) => event.type)).toEqual([
      'run-started',
      'items-appended',
      'usage-reported',
      'items-appended',
      'approval-requested',
      'approval-decided',
      'tool-calls-started',
      // Both results in one append: the calls finished while the first append waited.
      'items-appended',
      'usage-reported',
      'items-appended',
      'run-finished',
    ]);
    loop.stop();
  });

  it('sends a denial to the model as an error result with the reason, and never runs the call', async () => {
    scriptDeploys(['db']);
    const runs: string[] = [];
    const loop = createAgentLoop({
      model: fakeServerModel(server()),
      tools: [deployTool(runs)],
      tokens,
    });
    loop.start();
    const paused = await runTurn(loop, 'Deploy db.');
    expect(paused.outcome).toBe('awaiting_approval');
    const done = await decide(loop, {
      callId: 'call_0',
      approved: false,
      reason: 'not on a Friday',
    });
    expect(done.outcome).toBe('completed');
    expect(runs).toEqual([]);
    const denial = loop.session.items.find((item) => item.kind === 'toolResult');
    expect(denial).toMatchObject({ callId: 'call_0', isError: true });
    expect(denial?.kind === 'toolResult' && denial.content).toContain('not on a Friday');
    // The model was told: the second request carries the denial.
    const second = JSON.stringify(server().requests[1]?.body);
    expect(second).toContain('not on a Friday');
    loop.stop();
  });

  it('asks only for calls whose needsApproval function says so, and waits until every one is decided', async () => {
    scriptDeploys(['web', 'prod-db', 'prod-api']);
    const runs: string[] = [];
    const onlyProduction = ({ service }: { service: string }) => service.startsWith('prod-');
    const loop = createAgentLoop({
      model: fakeServerModel(server()),
      tools: [deployTool(runs, onlyProduction)],
      tokens,
    });
    loop.start();
    const paused = await runTurn(loop, 'Deploy all three.');
    expect(paused.pending.map((call) => call.callId)).toEqual(['call_1', 'call_2']);
    const partly = await decide(loop, { callId: 'call_1', approved: true });
    expect(partly.outcome).toBe('awaiting_approval');
    expect(partly.pending.map((call) => call.callId)).toEqual(['call_2']);
    expect(runs).toEqual([]);
    const done = await decide(loop, { callId: 'call_2', approved: false });
    expect(done.outcome).toBe('completed');
    expect([...runs].sort()).toEqual(['prod-db', 'web']);
    loop.stop();
  });

  it('refuses a second decision for the same call, and a decision for a call nobody waits for, with typed errors', async () => {
    scriptDeploys(['web', 'api']);
    const loop = createAgentLoop({
      model: fakeServerModel(server()),
      tools: [deployTool([])],
      tokens,
    });
    loop.start();
    await runTurn(loop, 'Deploy both.');
    const partly = await decide(loop, { callId: 'call_0', approved: true });
    expect(partly.outcome).toBe('awaiting_approval');
    const again = await decide(loop, { callId: 'call_0', approved: false }).catch((error) => error);
    expect(ApprovalError.isInstance(again)).toBe(true);
    expect(again).toMatchObject({ code: 'approval_already_decided' });
    const unknown = await decide(loop, { callId: 'call_9', approved: true }).catch(
      (error) => error,
    );
    expect(unknown).toMatchObject({ name: 'ApprovalError', code: 'approval_not_pending' });
    const malformed = await decide(loop, {
      callId: 'call_1',
      approved: 'yes' as unknown as boolean,
    }).catch((error) => error);
    expect(malformed).toMatchObject({ code: 'approval_invalid' });
    // A raw event for an undecided-again call is ignored by the machine, not recorded twice.
    loop.send({ type: 'tool.approval', callId: 'call_0', approved: false });
    expect(loop.getSnapshot().context.decisions).toEqual([]);
    const done = await decide(loop, { callId: 'call_1', approved: true });
    expect(done.outcome).toBe('completed');
    const decided = (await readSession(loop.session.store, loop.session.sessionId)).filter(
      (event) => event.type === 'approval-decided',
    );
    expect(decided.map((event) => event.type === 'approval-decided' && event.callId)).toEqual([
      'call_0',
      'call_1',
    ]);
    loop.stop();
  });

  it('aborting while waiting ends the run aborted with synthetic results, and the session goes on', async () => {
    server().enqueue(
      ...[
        { toolCalls: [{ id: 'call_0', name: 'deploy', arguments: { service: 'web' } }] },
        { text: 'Next turn answered.' },
      ],
    );
    const runs: string[] = [];
    const loop = createAgentLoop({
      model: fakeServerModel(server()),
      tools: [deployTool(runs)],
      tokens,
    });
    loop.start();
    const paused = await runTurn(loop, 'Deploy web.');
    expect(paused.outcome).toBe('awaiting_approval');
    loop.send({ type: 'abort' });
    await whenIdle(loop);
    expect(loop.getSnapshot().context.lastOutcome).toBe('aborted');
    expect(runs).toEqual([]);
    expect(validateTranscript(loop.session.items)).toEqual([]);
    const answer = loop.session.items.find((item) => item.kind === 'toolResult');
    expect(answer).toMatchObject({ callId: 'call_0', isError: true });
    expect((await runTurn(loop, 'Something else.')).outcome).toBe('completed');
    loop.stop();
  });

  it('a waiting run survives its process: another loop on the log lists the calls, decides, and completes the run', async () => {
    scriptDeploys(['web']);
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-approval-'));
    const runs: string[] = [];
    const first = createAgentLoop({
      model: fakeServerModel(server()),
      tools: [deployTool(runs)],
      store: new FileSessionStore({ directory }),
      sessionId: 'deploys',
      tokens,
    });
    first.start();
    const paused = await runTurn(first, 'Deploy web.');
    expect(paused.outcome).toBe('awaiting_approval');
    first.stop();
    await first.session.store.close();

    const second = await openAgentLoop({
      model: fakeServerModel(server()),
      tools: [deployTool(runs)],
      store: new FileSessionStore({ directory }),
      sessionId: 'deploys',
      tokens,
    });
    // Read from the log before the loop even starts, and from the events alone.
    expect(pendingApprovals(second).map((call) => call.callId)).toEqual(['call_0']);
    const logged = await readSession(second.session.store, 'deploys');
    expect(pendingApprovalsIn(logged)).toEqual(pendingApprovals(second));
    expect(pendingApprovalsIn(logged.slice(0, -1))).toEqual([]);
    second.start();
    const waiting = await resumeRun(second);
    expect(waiting).toMatchObject({ outcome: 'awaiting_approval', runId: paused.runId });
    const done = await decide(second, { callId: 'call_0', approved: true });
    expect(done).toMatchObject({ outcome: 'completed', runId: paused.runId, text: 'Finished.' });
    expect(runs).toEqual(['web']);
    expect(validateTranscript(second.session.items)).toEqual([]);
    second.stop();
    await second.session.store.close();
  });
});
