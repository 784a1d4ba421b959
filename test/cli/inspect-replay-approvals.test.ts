import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInspector, type StatelyInspectionEvent } from '@statelyai/inspect';
import {
  agentLoopMachine,
  decide,
  FileSessionStore,
  openAgentLoop,
  resumeRun,
  type SessionEvent,
  type TelemetryEvent,
} from 'loopkeeper';
import type { NewSessionEvent } from 'loopkeeper/log';
import { ScriptedModel } from 'loopkeeper/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishReplay, stateValueOf } from '../../src/cli/inspect/publish-replay.js';
import { type ReplayStep, replaySteps } from '../../src/cli/inspect/replay-steps.js';
import { runCli } from '../../src/cli/main.js';
import { recordTelemetry, sharedTokenCounter } from '../support/loop-harness.js';
import {
  type ApprovalSession,
  deployTool,
  recordApprovalSession,
  recordStates,
  statusTool,
} from './support/approval-session.js';
import { replayAgainstMachine } from './support/replay-follows-machine.js';

let directory: string;
let session: ApprovalSession;
/** The log after a second loop resumed the paused run, approved its call and finished it. */
let resumedEvents: SessionEvent[];
let resumedTelemetry: TelemetryEvent[];
let resumedStates: string[];

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'loopkeeper-inspect-replay-approvals-'));
  session = await recordApprovalSession({ directory });

  const tokens = await sharedTokenCounter();
  const store = new FileSessionStore({ directory });
  const loop = await openAgentLoop({
    model: new ScriptedModel({ tokens, streamDeltas: false, turns: [{ text: 'Deployed api.' }] }),
    tools: [deployTool, statusTool],
    tokens,
    store,
    sessionId: session.sessionId,
  });
  resumedTelemetry = recordTelemetry(loop);
  resumedStates = recordStates(loop);
  loop.start();
  const resumed = await resumeRun(loop);
  expect(resumed?.outcome).toBe('awaiting_approval');
  expect((await decide(loop, { callId: 'call_api', approved: true })).outcome).toBe('completed');
  loop.stop();
  await store.close();
  resumedEvents = [];
  const reader = new FileSessionStore({ directory });
  for await (const event of reader.read(session.sessionId)) resumedEvents.push(event);
  await reader.close();
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

const transitions = (steps: readonly ReplayStep[]) =>
  steps.map((step) => `${step.event.type} -> ${step.state}`);

/** Whether `part` appears in `whole` in order, with other items between allowed. */
function isSubsequence(part: readonly string[], whole: readonly string[]): boolean {
  let next = 0;
  for (const item of whole) if (item === part[next]) next += 1;
  return next === part.length;
}

/** Telemetry a replay can tell from the log: no deltas, no mutation events of the loop itself. */
const replayable = (events: readonly TelemetryEvent[]) =>
  events.filter(
    (event) => !['InferenceDelta', 'MutationStarted', 'MutationFinished'].includes(event.type),
  );

describe('replaySteps on runs that wait for approval', () => {
  it('walks a decided run through gatingTools, awaitingApproval and recordingDecisions, and leaves a paused run waiting', () => {
    const steps = replaySteps({ sessionId: session.sessionId, events: session.events });
    expect(transitions(steps)).toEqual([
      'user.message -> running.beginning',
      'xstate.done.actor.beginRun -> running.inferring',
      'xstate.done.actor.callModel -> running.gatingTools',
      'xstate.done.actor.gateTools -> running.awaitingApproval',
      'tool.approval -> running.recordingDecisions',
      'xstate.done.actor.recordDecisions -> running.awaitingApproval',
      'tool.approval -> running.recordingDecisions',
      'xstate.done.actor.recordDecisions -> running.toolResult',
      'xstate.done.actor.runTools -> running.inferring',
      'xstate.done.actor.callModel -> finishing',
      'xstate.done.actor.finishRun -> idle',
      'user.message -> running.beginning',
      'xstate.done.actor.beginRun -> running.inferring',
      'xstate.done.actor.callModel -> running.gatingTools',
      'xstate.done.actor.gateTools -> running.awaitingApproval',
    ]);
    const decisions = steps.filter((step) => step.event.type === 'tool.approval');
    expect(decisions.map((step) => step.event)).toEqual([
      { type: 'tool.approval', callId: 'call_web', approved: true },
      { type: 'tool.approval', callId: 'call_db', approved: false, reason: 'not today' },
    ]);
    // Every replayed state is one the live loop was in, in the same order.
    expect(
      isSubsequence(
        steps.map((step) => step.state),
        session.states,
      ),
    ).toBe(true);
    expect(steps.at(-1)?.context.runId).toBe(
      session.events.findLast((event) => event.type === 'run-started')?.runId,
    );
  });

  it('moves only along transitions of the real machine, decided, paused and resumed runs alike', () => {
    for (const events of [session.events, resumedEvents]) {
      expect(replayAgainstMachine({ sessionId: session.sessionId, events }).problems).toEqual([]);
    }
  });

  it('gives the approval telemetry of the live run: requests, decisions, and starts and finishes only of calls that ran', () => {
    const replayed = replaySteps({ sessionId: session.sessionId, events: session.events }).flatMap(
      (step) => step.telemetry,
    );
    const live = replayable(session.telemetry);
    expect(replayed.map((event) => event.type)).toEqual(live.map((event) => event.type));
    const strip = ({ at: _at, durationMs: _duration, ...rest }: Record<string, unknown>) => rest;
    for (const type of [
      'ApprovalRequested',
      'ApprovalDecided',
      'ToolCallStarted',
      'ToolCallFinished',
      'RunFinished',
    ] as const) {
      const pick = (list: readonly TelemetryEvent[]) =>
        list.filter((event) => event.type === type).map((event) => strip({ ...event }));
      expect(pick(replayed), type).toEqual(pick(live));
    }
    expect(
      replayed.filter((event) => event.type === 'ToolCallStarted').map((event) => event.callId),
    ).toEqual(['call_web', 'call_status']);
  });

  it('continues a run resumed by another loop from where it waited, as one run', () => {
    const steps = replaySteps({ sessionId: session.sessionId, events: resumedEvents });
    const before = replaySteps({ sessionId: session.sessionId, events: session.events });
    expect(steps.slice(0, before.length)).toEqual(before);
    expect(transitions(steps.slice(before.length))).toEqual([
      'tool.approval -> running.recordingDecisions',
      'xstate.done.actor.recordDecisions -> running.toolResult',
      'xstate.done.actor.runTools -> running.inferring',
      'xstate.done.actor.callModel -> finishing',
      'xstate.done.actor.finishRun -> idle',
    ]);
    expect(steps.filter((step) => step.event.type === 'user.message')).toHaveLength(2);
    const resumedPart = steps.slice(before.length).map((step) => step.state);
    expect(isSubsequence(resumedPart, resumedStates)).toBe(true);
    // The resuming loop emitted the wait again (it finds the run waiting) and RunStarted resumed;
    // the log has neither, so the replay shows the run's telemetry once.
    expect(resumedTelemetry.find((event) => event.type === 'RunStarted')).toMatchObject({
      resumed: true,
    });
    const after = steps.slice(before.length).flatMap((step) => step.telemetry);
    const live = replayable(resumedTelemetry).filter(
      (event) => event.type !== 'RunStarted' && event.type !== 'ApprovalRequested',
    );
    expect(after.map((event) => event.type)).toEqual(live.map((event) => event.type));
    expect(steps.at(-1)?.context).toMatchObject({ runs: 2, lastOutcome: 'completed' });
  });

  it('publishes the paused run to an inspector, its last snapshot waiting for approval', async () => {
    const steps = replaySteps({ sessionId: session.sessionId, events: session.events });
    const sent: StatelyInspectionEvent[] = [];
    const inspector = createInspector({ send: (event) => sent.push(event) });
    await publishReplay({
      inspector,
      steps,
      definition: agentLoopMachine.config,
      sessionId: session.sessionId,
    });
    const snapshots = sent.flatMap((event) =>
      event.type === '@xstate.snapshot'
        ? [{ value: (event.snapshot as { value?: unknown }).value }]
        : [],
    );
    expect(snapshots.at(-1)?.value).toEqual({ running: 'awaitingApproval' });
    expect(snapshots.map((snapshot) => snapshot.value)).toEqual(
      steps.map((step) => stateValueOf(step.state)),
    );
  });

  it('loopkeeper inspect says when the replayed session ends in a run that waits for approval', async () => {
    let stdout = '';
    const output = {
      write: (chunk: string) => {
        stdout += chunk;
        return true;
      },
      isTTY: false,
    };
    // The paused log is gone from the directory (the run was resumed since): write it again.
    const pausedDirectory = join(directory, 'paused');
    const store = new FileSessionStore({ directory: pausedDirectory });
    await store.append(
      session.sessionId,
      session.events.map(({ v: _v, seq: _seq, at: _at, ...event }) => event as NewSessionEvent),
      { expectedSeq: 0 },
    );
    await store.close();
    const code = await runCli({
      argv: [
        'inspect',
        session.sessionId,
        '--dir',
        pausedDirectory,
        '--port',
        String(await freePort()),
      ],
      environment: { stdout: output, stderr: output, env: {}, cwd: directory },
    });
    expect(code).toBe(0);
    const runId = session.events.findLast((event) => event.type === 'run-started')?.runId;
    expect(stdout).toMatch(
      new RegExp(
        `Replayed approvals: ${session.events.length} log events, 2 run\\(s\\), ${replaySteps({ sessionId: session.sessionId, events: session.events }).length} states, 0 compaction\\(s\\)\\. The last run \\(${runId}\\) waits for approval\\.`,
      ),
    );
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
