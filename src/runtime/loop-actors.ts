import { type AnyActorRef, fromPromise } from 'xstate';
import type {
  BeginRunInput,
  CallModelInput,
  CallModelOutput,
  CheckBudgetInput,
  CheckBudgetOutput,
  CompactInput,
  CompactOutput,
  EmergencyPruneOutput,
  FinishRunInput,
  RunMutatorInput,
  RunMutatorOutput,
  RunToolsInput,
  RunToolsOutput,
} from '../../machines/agent-loop.types.js';
import type { Compactor } from '../compaction/compactor.js';
import type { LoopMutator, MutationMarker } from '../compaction/types.js';
import { ModelError } from '../errors/model-error.js';
import { MutatorError } from '../errors/mutator-error.js';
import { ProtocolError } from '../errors/protocol-error.js';
import type { NewSessionEvent } from '../log/events.js';
import { buildReplacementView } from '../log/replacement-view.js';
import type { ModelAdapter, ModelResponse } from '../model/types.js';
import { executeToolCalls } from '../tools/execute-tool-calls.js';
import { toolSpecs } from '../tools/tool-registry.js';
import type { AnyToolDefinition } from '../tools/types.js';
import { checkItem } from '../transcript/check-item.js';
import { createItemId } from '../transcript/ids.js';
import type { AssistantItem, Item, ProtocolProblem } from '../transcript/types.js';
import { validateTranscript } from '../transcript/validate-transcript.js';
import type { LoopSession } from './loop-session.js';
import type { TelemetryEvent } from './telemetry-events.js';

export interface LoopActorsOptions {
  readonly session: LoopSession;
  readonly model: ModelAdapter;
  readonly tools: readonly AnyToolDefinition[];
  readonly instructions: string | undefined;
  readonly mutators: readonly LoopMutator[];
  readonly compactor: Compactor | undefined;
  readonly toolTimeoutMs: number | undefined;
}

/**
 * Hands telemetry produced inside an invoked actor to the loop actor that invoked it, which
 * emits it to its listeners. Works the same for a root loop and for a loop spawned as a child.
 */
function forward(self: AnyActorRef, event: TelemetryEvent): void {
  self._parent?.send({ type: 'loop.telemetry', event });
}

/** The implementations of the machine's named actors for one session. */
export function createLoopActors({
  session,
  model,
  tools,
  instructions,
  mutators,
  compactor,
  toolTimeoutMs,
}: LoopActorsOptions) {
  const specs = toolSpecs(tools);

  async function recordReplacement(
    runId: string,
    previous: readonly Item[],
    next: readonly Item[],
    marker: MutationMarker,
  ): Promise<void> {
    await session.appendForRun(runId, [
      {
        type: 'transcript-replaced',
        runId,
        throughSeq: session.lastSeq,
        view: buildReplacementView({ previous, next }),
        reason: marker.reason,
        tier: marker.tier,
        strategies: marker.strategies,
        tokensBefore: marker.tokensBefore,
        tokensAfter: marker.tokensAfter,
      },
    ]);
  }

  return {
    beginRun: fromPromise<void, BeginRunInput>(async ({ input }) => {
      await session.open();
      await session.closeUnclosedRun();
      const user = { kind: 'user' as const, id: createItemId('user'), content: input.content };
      // Refused at the door: nothing of a run with invalid input reaches the log.
      const problems = checkItem(user, session.items.length);
      if (problems.length > 0) {
        throw new ProtocolError(problems, `Invalid user message: ${problems[0]?.message ?? ''}`);
      }
      session.beginRun(input.runId);
      await session.appendForRun(input.runId, [
        { type: 'run-started', runId: input.runId },
        {
          type: 'items-appended',
          runId: input.runId,
          items: [user],
        },
      ]);
    }),

    callModel: fromPromise<CallModelOutput, CallModelInput>(async ({ input, signal, self }) => {
      const telemetry = (event: TelemetryEvent) => forward(self, event);
      const counter = await session.tokens();
      session.assertReadyForModel();
      const transcript = session.items;
      const estimate = session.estimateTokens(counter);
      telemetry({
        type: 'InferenceStarted',
        sessionId: input.sessionId,
        runId: input.runId,
        at: Date.now(),
        step: input.step,
        estimatedPromptTokens: estimate,
      });
      const started = performance.now();
      const response = await model.generate({
        ...(instructions === undefined ? {} : { instructions }),
        transcript,
        tools: specs,
        signal,
        onTextDelta: (delta) =>
          telemetry({
            type: 'InferenceDelta',
            sessionId: input.sessionId,
            runId: input.runId,
            at: Date.now(),
            step: input.step,
            delta,
          }),
      });
      const durationMs = performance.now() - started;
      const assistant = toAssistantItem(response, session);
      // Usage goes first: the projection pairs it with the history the request was built from.
      const events: NewSessionEvent[] = [];
      if (response.usage !== undefined) {
        events.push({
          type: 'usage-reported',
          runId: input.runId,
          model: response.model,
          promptTokens: response.usage.promptTokens,
          completionTokens: response.usage.completionTokens,
          ...(response.usage.cachedTokens === undefined
            ? {}
            : { cachedTokens: response.usage.cachedTokens }),
          estimatedPromptTokens: estimate,
        });
      }
      events.push({ type: 'items-appended', runId: input.runId, items: [assistant] });
      if (signal.aborted) throw signal.reason;
      await session.appendForRun(input.runId, events);
      const toolCalls = assistant.toolCalls?.length ?? 0;
      return {
        kind: toolCalls > 0 ? 'toolCalls' : 'final',
        toolCalls,
        usage: response.usage ?? null,
        durationMs,
      };
    }),

    runTools: fromPromise<RunToolsOutput, RunToolsInput>(async ({ input, signal, self }) => {
      const telemetry = (event: TelemetryEvent) => forward(self, event);
      const calls = session.pendingToolCalls;
      const results = await executeToolCalls({
        tools,
        calls,
        signal,
        ...(toolTimeoutMs === undefined ? {} : { defaultTimeoutMs: toolTimeoutMs }),
        onCallStarted: ({ callId, toolName }) =>
          telemetry({
            type: 'ToolCallStarted',
            sessionId: input.sessionId,
            runId: input.runId,
            at: Date.now(),
            callId,
            toolName,
          }),
        onCallFinished: ({ callId, toolName, isError, durationMs }) =>
          telemetry({
            type: 'ToolCallFinished',
            sessionId: input.sessionId,
            runId: input.runId,
            at: Date.now(),
            callId,
            toolName,
            isError,
            durationMs,
          }),
      });
      // When aborted, the abort path answers open calls itself; writing here would race it.
      if (signal.aborted) throw signal.reason;
      await session.appendForRun(input.runId, [
        { type: 'items-appended', runId: input.runId, items: results },
      ]);
      return { results: results.length, errors: results.filter((result) => result.isError).length };
    }),

    runMutator: fromPromise<RunMutatorOutput, RunMutatorInput>(async ({ input, signal }) => {
      const mutator = mutators.find((candidate) => candidate.name === input.mutator);
      if (mutator === undefined) throw new MutatorError(`No mutator named "${input.mutator}"`);
      const previous = session.items;
      const tokens = await session.tokens();
      const output = await mutator.mutate({
        transcript: previous,
        tokens,
        point: input.point,
        signal,
        ...(session.reported === undefined ? {} : { reported: session.reported }),
      });
      if (!output.dirty) return { dirty: false, valid: true, metadata: output.metadata ?? {} };
      const problems = validateTranscript(output.transcript);
      if (problems.length > 0) {
        return {
          dirty: true,
          valid: false,
          metadata: output.metadata,
          problems: problems.map(
            (problem: ProtocolProblem) => `${problem.index}: ${problem.kind}: ${problem.message}`,
          ),
        };
      }
      if (signal.aborted) throw signal.reason;
      const before = session.estimateTokens(tokens);
      await recordReplacement(
        input.runId,
        previous,
        output.transcript,
        output.marker ?? {
          reason: 'manual',
          tier: 'mutator',
          strategies: [mutator.name],
          tokensBefore: before,
          tokensAfter: tokens.count(output.transcript),
        },
      );
      return { dirty: true, valid: true, metadata: output.metadata };
    }),

    checkBudget: fromPromise<CheckBudgetOutput, CheckBudgetInput>(async () => {
      const tokens = await session.tokens();
      if (compactor === undefined)
        return { over: false, tokens: session.estimateTokens(tokens), basis: 'estimate' };
      const decision = compactor.evaluate({
        transcript: session.items,
        tokens,
        estimatedTokens: session.estimateTokens(tokens),
        ...(session.reported === undefined ? {} : { reported: session.reported }),
      });
      return { over: decision.fire, tokens: decision.tokens, basis: decision.basis };
    }),

    compact: fromPromise<CompactOutput, CompactInput>(async ({ input, signal }) => {
      if (compactor === undefined) throw new MutatorError('No compactor is configured');
      const tokens = await session.tokens();
      const previous = session.items;
      const started = performance.now();
      const outcome = await compactor.compact({
        transcript: previous,
        tokens,
        reason: input.reason,
        signal,
        ...(session.reported === undefined ? {} : { reported: session.reported }),
      });
      const durationMs = performance.now() - started;
      const base = {
        tier: outcome.tier,
        strategies: outcome.strategies,
        tokensBefore: outcome.tokensBefore,
        tokensAfter: outcome.tokensAfter,
        durationMs,
        metadata: outcome.metadata,
      };
      if (validateTranscript(outcome.transcript).length > 0) return { status: 'invalid', ...base };
      if (signal.aborted) throw signal.reason;
      if (outcome.transcript !== previous) {
        await recordReplacement(input.runId, previous, outcome.transcript, {
          reason: input.reason,
          tier: outcome.tier,
          strategies: outcome.strategies,
          tokensBefore: outcome.tokensBefore,
          tokensAfter: outcome.tokensAfter,
        });
      }
      // A reactive compaction must make the request smaller, whatever our own trigger thinks.
      const reduced = outcome.tokensAfter < outcome.tokensBefore;
      const effective = outcome.effective && (input.reason === 'threshold' || reduced);
      return { status: effective ? 'effective' : 'ineffective', ...base };
    }),

    emergencyPrune: fromPromise<EmergencyPruneOutput, CompactInput>(async ({ input, signal }) => {
      if (compactor === undefined) throw new MutatorError('No compactor is configured');
      const tokens = await session.tokens();
      const previous = session.items;
      const outcome = await compactor.emergencyPrune({
        transcript: previous,
        tokens,
        reason: input.reason,
        signal,
      });
      const base = {
        tokensBefore: outcome.tokensBefore,
        tokensAfter: outcome.tokensAfter,
        metadata: outcome.metadata,
      };
      if (validateTranscript(outcome.transcript).length > 0) return { status: 'invalid', ...base };
      if (signal.aborted) throw signal.reason;
      if (outcome.transcript !== previous) {
        await recordReplacement(input.runId, previous, outcome.transcript, {
          reason: input.reason,
          tier: 'emergency',
          strategies: outcome.strategies,
          tokensBefore: outcome.tokensBefore,
          tokensAfter: outcome.tokensAfter,
        });
      }
      // After a provider refusal, an unchanged transcript would only be refused again.
      const reduced = outcome.tokensAfter < outcome.tokensBefore;
      const fits = outcome.fits && (input.reason === 'threshold' || reduced);
      return { status: fits ? 'fits' : 'too-large', ...base };
    }),

    finishRun: fromPromise<void, FinishRunInput>(async ({ input }) => {
      const why = input.error === null ? input.outcome : `${input.outcome}: ${input.error.message}`;
      await session.finishRun(
        input.runId,
        {
          type: 'run-finished',
          runId: input.runId,
          outcome: input.outcome,
          steps: input.steps,
          ...(input.error === null ? {} : { error: input.error }),
        },
        `The run ended (${why}) before this tool call was answered.`,
      );
    }),

    abortRun: fromPromise<void, FinishRunInput>(async ({ input }) => {
      await session.finishRun(
        input.runId,
        {
          type: 'run-finished',
          runId: input.runId,
          outcome: 'aborted',
          steps: input.steps,
          ...(input.error === null ? {} : { error: input.error }),
        },
        'The run was aborted before this tool call finished.',
      );
    }),
  };
}

/**
 * Turns a model answer into an assistant item. Tool call ids the session has already seen (or
 * that repeat within the answer) get fresh ones, so a misbehaving model cannot break the protocol.
 */
function toAssistantItem(response: ModelResponse, session: LoopSession): AssistantItem {
  assertWellFormedResponse(response);
  const used = new Set<string>();
  const toolCalls = (response.toolCalls ?? []).map((call) => {
    const id =
      call.id === '' || used.has(call.id) || session.hasSeenCallId(call.id)
        ? createItemId('call')
        : call.id;
    used.add(id);
    return id === call.id ? call : { ...call, id };
  });
  return {
    kind: 'assistant',
    id: createItemId('assistant'),
    ...(response.text === undefined ? {} : { text: response.text }),
    ...(response.reasoning === undefined || response.reasoning.length === 0
      ? {}
      : { reasoning: response.reasoning }),
    ...(toolCalls.length === 0 ? {} : { toolCalls }),
  };
}

/** Refuses a malformed answer (as sloppy compatible servers send) before it can reach the log. */
function assertWellFormedResponse(response: ModelResponse): void {
  const value = response as unknown as Record<string, unknown>;
  const problems: string[] = [];
  if (value['text'] !== undefined && typeof value['text'] !== 'string') {
    problems.push('text is not a string');
  }
  const calls = value['toolCalls'];
  if (calls !== undefined && !Array.isArray(calls)) problems.push('toolCalls is not a list');
  for (const [index, call] of (Array.isArray(calls) ? calls : []).entries()) {
    const record = (typeof call === 'object' && call !== null ? call : {}) as Record<
      string,
      unknown
    >;
    if (typeof record['id'] !== 'string') problems.push(`tool call ${index} has no string id`);
    if (typeof record['name'] !== 'string' || record['name'] === '') {
      problems.push(`tool call ${index} has no name`);
    }
    if (typeof record['arguments'] !== 'string') {
      problems.push(`tool call ${index} arguments are not a JSON string`);
    }
  }
  if (problems.length > 0) {
    throw new ModelError(
      'invalid_response',
      `The model's answer is malformed: ${problems.join('; ')}`,
    );
  }
}
