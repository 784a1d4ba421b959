import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import {
  createInspector,
  createWebSocketReceiver,
  type StatelyInspectionEvent,
} from '@statelyai/inspect';
import {
  agentLoopMachine,
  createAgentLoop,
  createCompactor,
  defineTool,
  extractiveSummarizer,
  FileSessionStore,
  ModelError,
  runTurn,
  type SessionEvent,
  type TelemetryEvent,
  tokenBudgetTrigger,
} from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishReplay, stateValueOf } from '../../src/cli/inspect/publish-replay.js';
import { type ReplayStep, replaySteps } from '../../src/cli/inspect/replay-steps.js';
import { runCli } from '../../src/cli/main.js';
import { recordTelemetry, sharedTokenCounter } from '../support/loop-harness.js';
import { replayAgainstMachine } from './support/replay-follows-machine.js';

const fetchPage = defineTool({
  name: 'fetch_page',
  description: 'Returns a long page.',
  parameters: { type: 'object' },
  execute: () => 'page text '.repeat(400),
});

let directory: string;
let sessionId: string;
let events: SessionEvent[];
let live: TelemetryEvent[];

/** Two runs recorded to a file log: one with two tool calls and a compaction, one that fails. */
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'loopkeeper-inspect-replay-'));
  const tokens = await sharedTokenCounter();
  const store = new FileSessionStore({ directory });
  const loop = createAgentLoop({
    model: new ScriptedModel({
      tokens,
      streamDeltas: false,
      turns: [
        { toolCalls: [{ id: 'call_1', name: 'fetch_page', arguments: {} }] },
        { toolCalls: [{ id: 'call_2', name: 'fetch_page', arguments: {} }] },
        { text: 'Both pages read.' },
        { error: new ModelError('Incorrect API key provided.', { kind: 'auth', status: 401 }) },
      ],
    }),
    tools: [fetchPage],
    tokens,
    store,
    compactor: createCompactor({
      trigger: tokenBudgetTrigger({ maxTokens: 1_000, targetRatio: 0.9 }),
      backend: extractiveSummarizer(),
      structural: { pruneToolResults: { protectRecentTokens: 0, minSavingsTokens: 10 } },
    }),
  });
  live = recordTelemetry(loop);
  loop.start();
  expect((await runTurn(loop, 'Read two pages.')).outcome).toBe('completed');
  expect((await runTurn(loop, 'Once more.')).outcome).toBe('failed');
  loop.stop();
  sessionId = loop.session.sessionId;
  await store.close();
  events = [];
  const reader = new FileSessionStore({ directory });
  for await (const event of reader.read(sessionId)) events.push(event);
  await reader.close();
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('replaySteps', () => {
  it('rebuilds the states the loop went through from the log alone', () => {
    const steps = replaySteps({ sessionId, events });
    expect(steps.map((step) => `${step.event.type} -> ${step.state}`)).toEqual([
      'user.message -> running.beginning',
      'xstate.done.actor.beginRun -> running.inferring',
      'xstate.done.actor.callModel -> running.toolResult',
      'xstate.done.actor.runTools -> running.inferring',
      'xstate.done.actor.callModel -> running.toolResult',
      'xstate.done.actor.runTools -> running.compacting',
      'xstate.done.actor.compact -> running.inferring',
      'xstate.done.actor.callModel -> finishing',
      'xstate.done.actor.finishRun -> idle',
      'user.message -> running.beginning',
      // The log has no answer for the second run's inference: it failed, as the run says.
      'xstate.done.actor.beginRun -> running.inferring',
      'xstate.error.actor.callModel -> finishing',
      'xstate.done.actor.finishRun -> idle',
    ]);
    expect(steps[0]?.event).toMatchObject({ content: 'Read two pages.' });
    expect(steps.at(-1)?.context).toMatchObject({
      runs: 2,
      lastOutcome: 'failed',
      lastError: { code: 'model_auth' },
    });
  });

  it('moves only along transitions of the real machine: each is the one agentLoopMachine takes from the snapshot before', () => {
    const { problems, steps, taken } = replayAgainstMachine({ sessionId, events });
    expect(problems).toEqual([]);
    // The budget checks were taken too, but are not shown: the log has no trace of them.
    expect(taken).toBeGreaterThan(steps.length);
  });

  it('stamps telemetry with the times in the log, so a replay gives the same steps every time', () => {
    const steps = replaySteps({ sessionId, events });
    const times = new Set(events.map((event) => Date.parse(event.at)));
    const telemetry = steps.flatMap((step) => step.telemetry);
    expect(telemetry.filter((event) => !times.has(event.at))).toEqual([]);
    expect(replaySteps({ sessionId, events })).toEqual(steps);
  });

  it('gives the telemetry of the live run, in order, with the same facts', () => {
    const replayed = replaySteps({ sessionId, events }).flatMap((step) => step.telemetry);
    // The machine emits what the live loop emitted: the compactor's mutation events and the
    // failed inference (its start and failure) included.
    expect(replayed.map((event) => event.type)).toEqual(live.map((event) => event.type));
    const pick = (list: readonly TelemetryEvent[], type: TelemetryEvent['type']) =>
      list.filter((event) => event.type === type);
    const strip = ({ durationMs: _duration, at: _at, ...rest }: Record<string, unknown>) => rest;
    for (const type of [
      'RunStarted',
      'CompactionStarted',
      'CompactionFinished',
      'ToolCallFinished',
      'InferenceFailed',
      'RunFinished',
    ] as const) {
      expect(pick(replayed, type).map((event) => strip({ ...event }))).toEqual(
        pick(live, type).map((event) => strip({ ...event })),
      );
    }
    expect(
      pick(replayed, 'InferenceFinished').map(
        (event) => event.type === 'InferenceFinished' && event.usage,
      ),
    ).toEqual(
      pick(live, 'InferenceFinished').map(
        (event) => event.type === 'InferenceFinished' && event.usage,
      ),
    );
  });
});

/** Every inspection event a replay sends, captured by an adapter instead of a socket. */
async function capture(steps: readonly ReplayStep[]): Promise<StatelyInspectionEvent[]> {
  const sent: StatelyInspectionEvent[] = [];
  const inspector = createInspector({ send: (event) => sent.push(event) });
  await publishReplay({ inspector, steps, definition: agentLoopMachine.config, sessionId });
  return sent;
}

function describeInspection(event: StatelyInspectionEvent): string {
  switch (event.type) {
    case '@xstate.actor':
      return `actor ${event.sessionId}`;
    case '@xstate.event':
      return `event ${event.sourceId ?? '-'} => ${event.sessionId}: ${event.event.type}`;
    case '@xstate.snapshot':
      return `snapshot ${event.sessionId}: ${JSON.stringify((event.snapshot as { value?: unknown }).value)}`;
  }
}

describe('publishReplay', () => {
  it('sends the loop actor with its machine, then per state its event, snapshot and telemetry', async () => {
    const sent = await capture(replaySteps({ sessionId, events }));
    const described = sent.map(describeInspection);
    expect(described.slice(0, 12)).toEqual([
      'actor agentLoop',
      'actor telemetry',
      'event host => agentLoop: user.message',
      'snapshot agentLoop: {"running":"beginning"}',
      'event agentLoop => telemetry: RunStarted',
      'event - => agentLoop: xstate.done.actor.beginRun',
      'snapshot agentLoop: {"running":"inferring"}',
      'event agentLoop => telemetry: InferenceStarted',
      'event - => agentLoop: xstate.done.actor.callModel',
      'snapshot agentLoop: {"running":"toolResult"}',
      'event agentLoop => telemetry: InferenceFinished',
      'event agentLoop => telemetry: ToolCallStarted',
    ]);
    const compacting = described.indexOf('snapshot agentLoop: {"running":"compacting"}');
    expect(described.slice(compacting - 1, compacting + 6)).toEqual([
      'event - => agentLoop: xstate.done.actor.runTools',
      'snapshot agentLoop: {"running":"compacting"}',
      'event agentLoop => telemetry: ToolCallFinished',
      'event agentLoop => telemetry: CompactionStarted',
      'event agentLoop => telemetry: MutationStarted',
      'event - => agentLoop: xstate.done.actor.compact',
      'snapshot agentLoop: {"running":"inferring"}',
    ]);
    expect(described.at(-1)).toBe('event agentLoop => telemetry: RunFinished');
    const [actor] = sent;
    expect(actor?.type === '@xstate.actor' && JSON.parse(actor.definition ?? '{}').id).toBe(
      agentLoopMachine.id,
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

describe('loopkeeper inspect', () => {
  it('publishes the replay through the relay to a connected viewer, without a model or a key', async () => {
    const port = await freePort();
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    let stdout = '';
    const output = {
      write: (chunk: string) => {
        stdout += chunk;
        return true;
      },
      isTTY: false,
    };
    const received: StatelyInspectionEvent[] = [];
    const exit = runCli({
      argv: ['inspect', join(directory, `${sessionId}.jsonl`), '--port', String(port)],
      environment: { stdout: output, stderr: output, stdin, env: {}, cwd: directory },
    });
    const until = async (condition: () => boolean) => {
      while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    await until(() => stdout.includes('Press Enter to start'));
    const viewer = createWebSocketReceiver({ server: `ws://127.0.0.1:${port}` });
    viewer.subscribe((event) => received.push(event));
    await new Promise((resolve) => setTimeout(resolve, 200));
    stdin.write('\n');
    await until(() => stdout.includes('Press Enter to stop'));
    await until(() => received.filter((event) => event.type === '@xstate.snapshot').length >= 12);
    stdin.write('\n');
    expect(await exit).toBe(0);
    expect(stdout).toContain(`Inspector relay: ws://127.0.0.1:${port}`);
    expect(stdout).toContain(`Replayed ${sessionId}:`);
    const states = received
      .filter((event) => event.type === '@xstate.snapshot')
      .map((event) =>
        event.type === '@xstate.snapshot'
          ? (event.snapshot as { value?: unknown }).value
          : undefined,
      );
    expect(states).toEqual(
      replaySteps({ sessionId, events }).map((step) => stateValueOf(step.state)),
    );
  });
});

describe('loopkeeper inspect on a busy port', () => {
  it('names its own flag, --port, in the advice', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, resolve));
    const { port } = busy.address() as { port: number };
    let stderr = '';
    const output = {
      write: (chunk: string) => {
        stderr += chunk;
        return true;
      },
      isTTY: false,
    };
    try {
      const code = await runCli({
        argv: ['inspect', join(directory, `${sessionId}.jsonl`), '--port', String(port)],
        environment: { stdout: output, stderr: output, env: {}, cwd: directory },
      });
      expect(code).toBe(1);
      expect(stderr.trim()).toBe(
        `loopkeeper inspect: error: Port ${port} is in use; choose another with --port`,
      );
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });
});
