import type { SessionEvent, TelemetryEvent } from 'loopkeeper';
import type { NewSessionEvent } from 'loopkeeper/log';
import { describe, expect, it } from 'vitest';
import { type ReplayStep, replaySteps } from '../../src/cli/inspect/replay-steps.js';
import { replayAgainstMachine } from './support/replay-follows-machine.js';

/** A log as a store would stamp it: `seq` from 1, a second apart, all at schema version `v`. */
function stamped(v: number, events: readonly NewSessionEvent[]): SessionEvent[] {
  return events.map(
    (event, index) =>
      ({
        ...event,
        v,
        seq: index + 1,
        at: new Date(Date.UTC(2026, 11, 1, 12, 0, index)).toISOString(),
      }) as SessionEvent,
  );
}

const user = (runId: string, content: string): NewSessionEvent => ({
  type: 'items-appended',
  runId,
  items: [{ kind: 'user', id: `user_${runId}`, content }],
});
const answer = (runId: string, id: string, calls: readonly string[] = []): NewSessionEvent => ({
  type: 'items-appended',
  runId,
  items: [
    calls.length === 0
      ? { kind: 'assistant', id, text: 'Done.' }
      : {
          kind: 'assistant',
          id,
          toolCalls: calls.map((call) => ({ id: call, name: 'fetch', arguments: '{}' })),
        },
  ],
});
const result = (runId: string, callId: string, content = 'ok'): NewSessionEvent => ({
  type: 'items-appended',
  runId,
  items: [
    {
      kind: 'toolResult',
      id: `result_${callId}`,
      callId,
      toolName: 'fetch',
      content,
      isError: false,
    },
  ],
});
const replaced = (
  runId: string | undefined,
  tier: 'mutator' | 'structural' | 'summary' | 'emergency',
  reason: 'threshold' | 'manual',
): NewSessionEvent => ({
  type: 'transcript-replaced',
  ...(runId === undefined ? {} : { runId }),
  throughSeq: 1,
  view: [],
  reason,
  tier,
  strategies: [tier === 'mutator' ? 'trimmer' : `${tier}Strategy`],
  tokensBefore: 900,
  tokensAfter: 300,
});

const transitions = (steps: readonly ReplayStep[]) =>
  steps.map((step) => `${step.event.type} -> ${step.state}`);
const ofType = <Type extends TelemetryEvent['type']>(steps: readonly ReplayStep[], type: Type) =>
  steps
    .flatMap((step) => step.telemetry)
    .filter((event): event is Extract<TelemetryEvent, { type: Type }> => event.type === type);

describe('replaySteps on logs written by hand', () => {
  it('replays a schema-3 log: every call ran, a mutator, a compaction the prune followed, a step limit', () => {
    const events = stamped(3, [
      { type: 'run-started', runId: 'r1' },
      user('r1', 'Fetch both.'),
      { type: 'usage-reported', runId: 'r1', model: 'm', promptTokens: 10, completionTokens: 2 },
      answer('r1', 'a1', ['c1', 'c2']),
      result('r1', 'c1'),
      result('r1', 'c2'),
      replaced('r1', 'mutator', 'manual'),
      replaced('r1', 'structural', 'threshold'),
      replaced('r1', 'emergency', 'threshold'),
      answer('r1', 'a2'),
      { type: 'run-finished', runId: 'r1', outcome: 'completed', steps: 2 },
      { type: 'run-started', runId: 'r2' },
      user('r2', 'Keep going.'),
      answer('r2', 'a3', ['c3']),
      result('r2', 'c3'),
      answer('r2', 'a4', ['c4']),
      result('r2', 'c4'),
      { type: 'run-finished', runId: 'r2', outcome: 'step_limit', steps: 2 },
    ]);
    const { problems, steps } = replayAgainstMachine({ sessionId: 's', events });
    expect(problems).toEqual([]);
    expect(transitions(steps)).toEqual([
      'user.message -> running.beginning',
      'xstate.done.actor.beginRun -> running.inferring',
      'xstate.done.actor.callModel -> running.toolResult',
      'xstate.done.actor.runTools -> running.mutating',
      'xstate.done.actor.runMutator -> running.compacting',
      'xstate.done.actor.compact -> running.emergencyPruning',
      'xstate.done.actor.emergencyPrune -> running.inferring',
      'xstate.done.actor.callModel -> finishing',
      'xstate.done.actor.finishRun -> idle',
      'user.message -> running.beginning',
      'xstate.done.actor.beginRun -> running.inferring',
      'xstate.done.actor.callModel -> running.toolResult',
      'xstate.done.actor.runTools -> running.inferring',
      'xstate.done.actor.callModel -> running.toolResult',
      'xstate.done.actor.runTools -> finishing',
      'xstate.done.actor.finishRun -> idle',
    ]);
    expect(ofType(steps, 'ToolCallStarted').map((event) => event.callId)).toEqual([
      'c1',
      'c2',
      'c3',
      'c4',
    ]);
    expect(ofType(steps, 'MutationFinished').map(({ mutator, dirty }) => [mutator, dirty])).toEqual(
      [
        ['trimmer', true],
        ['compactor', true],
        ['emergencyPrune', true],
        // Declared after tool results, the mutator runs again in the second run; it changed
        // nothing there, so the log has no trace, but the machine reports it as the loop did.
        ['trimmer', false],
        ['trimmer', false],
      ],
    );
    expect(ofType(steps, 'CompactionFinished').map((event) => event.effective)).toEqual([false]);
    expect(ofType(steps, 'RunFinished').map((event) => event.outcome)).toEqual([
      'completed',
      'step_limit',
    ]);
  });

  it('replays a run aborted while it waited, a compaction asked for between runs, and a failed inference', () => {
    const events = stamped(5, [
      { type: 'run-started', runId: 'r1' },
      user('r1', 'Deploy.'),
      answer('r1', 'a1', ['c1']),
      {
        type: 'approval-requested',
        runId: 'r1',
        calls: [{ callId: 'c1', toolName: 'fetch', arguments: '{}', argumentsHash: 'sha256:0' }],
      },
      result('r1', 'c1', 'The run was aborted before this tool call finished.'),
      {
        type: 'run-finished',
        runId: 'r1',
        outcome: 'aborted',
        steps: 1,
        error: {
          name: 'AbortedError',
          code: 'aborted',
          message: 'The run was aborted by the host',
        },
      },
      replaced(undefined, 'summary', 'manual'),
      { type: 'run-started', runId: 'r2' },
      user('r2', 'Once more.'),
      {
        type: 'run-finished',
        runId: 'r2',
        outcome: 'failed',
        steps: 1,
        error: { name: 'ModelError', code: 'model_auth', message: 'Incorrect API key provided.' },
      },
    ]);
    const { problems, steps } = replayAgainstMachine({ sessionId: 's', events });
    expect(problems).toEqual([]);
    expect(transitions(steps)).toEqual([
      'user.message -> running.beginning',
      'xstate.done.actor.beginRun -> running.inferring',
      'xstate.done.actor.callModel -> running.gatingTools',
      'xstate.done.actor.gateTools -> running.awaitingApproval',
      'abort -> aborting',
      'xstate.done.actor.abortRun -> idle',
      'compact -> compactingNow',
      'xstate.done.actor.compactNow -> idle',
      'user.message -> running.beginning',
      'xstate.done.actor.beginRun -> running.inferring',
      'xstate.error.actor.callModel -> finishing',
      'xstate.done.actor.finishRun -> idle',
    ]);
    expect(ofType(steps, 'CompactionFinished')).toMatchObject([
      { reason: 'manual', tier: 'summary', tokensBefore: 900, tokensAfter: 300 },
    ]);
    expect(
      ofType(steps, 'RunFinished').map(({ outcome, error }) => [outcome, error?.code]),
    ).toEqual([
      ['aborted', 'aborted'],
      ['failed', 'model_auth'],
    ]);
    // A log that stops mid-run leaves the replay where it stops: here waiting for a decision.
    const cut = replaySteps({ sessionId: 's', events: events.slice(0, 4) });
    expect(cut.at(-1)?.state).toBe('running.awaitingApproval');
  });
});
