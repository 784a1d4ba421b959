import { type Context, context, SpanKind } from '@opentelemetry/api';
import type { RunFinished, RunStarted, TelemetryEvent } from '../events/telemetry-events.js';
import { failChat, finishChat, recordDelta, startChat } from './chat-spans.js';
import {
  failCompaction,
  finishCompaction,
  finishMutation,
  recordEmergencyPrune,
  startCompaction,
  startMutation,
} from './compaction-spans.js';
import {
  GEN_AI_AGENT_NAME,
  GEN_AI_CONVERSATION_ID,
  GEN_AI_OPERATION_NAME,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_USAGE_INPUT_TOKENS,
  GEN_AI_USAGE_OUTPUT_TOKENS,
  OPERATION_INVOKE_AGENT,
} from './gen-ai-attributes.js';
import {
  LOOPKEEPER_CHILD_SOURCE,
  LOOPKEEPER_RUN_ID,
  LOOPKEEPER_RUN_OUTCOME,
  LOOPKEEPER_RUN_STEPS,
} from './loopkeeper-attributes.js';
import type { RecorderSettings } from './recorder-settings.js';
import {
  createRunSpans,
  failSpan,
  openChildren,
  parentContextOf,
  type RunSpans,
} from './run-spans.js';
import { finishTool, recordToolProgress, startTool } from './tool-spans.js';

/** Turns telemetry events into spans; one recorder serves any number of loops. */
export interface SpanRecorder {
  record(event: TelemetryEvent, parent?: Context): void;
  /** The context the model call of the inference just started should run in, once. */
  takeModelContext(): Context | undefined;
  /** Ends every open span, e.g. when the host shuts down in the middle of a run. */
  endAll(): void;
}

export function createSpanRecorder(settings: RecorderSettings): SpanRecorder {
  const runs = new Map<string, RunSpans>();
  let modelContext: Context | undefined;
  const keyOf = (event: TelemetryEvent) => `${event.sessionId}\u0000${event.runId}`;

  const startRun = (event: RunStarted, parent: Context): void => {
    const span = settings.tracer.startSpan(
      settings.agentName === undefined
        ? OPERATION_INVOKE_AGENT
        : `${OPERATION_INVOKE_AGENT} ${settings.agentName}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: event.at,
        attributes: {
          [GEN_AI_OPERATION_NAME]: OPERATION_INVOKE_AGENT,
          [GEN_AI_CONVERSATION_ID]: event.sessionId,
          [LOOPKEEPER_RUN_ID]: event.runId,
          // A run continued from its log in a new process gets a span of its own.
          ...(event.resumed === true ? { 'loopkeeper.run.resumed': true } : {}),
          ...(settings.agentName === undefined ? {} : { [GEN_AI_AGENT_NAME]: settings.agentName }),
          ...(settings.providerName === undefined
            ? {}
            : { [GEN_AI_PROVIDER_NAME]: settings.providerName }),
        },
      },
      parent,
    );
    runs.set(keyOf(event), createRunSpans(span, parent));
  };

  const finishRun = (run: RunSpans, event: RunFinished): void => {
    for (const child of openChildren(run)) {
      if (event.error !== undefined) failSpan(child, event.error);
      child.end(event.at);
    }
    run.span.setAttributes({
      [LOOPKEEPER_RUN_OUTCOME]: event.outcome,
      [LOOPKEEPER_RUN_STEPS]: event.steps,
      [GEN_AI_USAGE_INPUT_TOKENS]: run.inputTokens,
      [GEN_AI_USAGE_OUTPUT_TOKENS]: run.outputTokens,
    });
    if (event.error !== undefined) failSpan(run.span, event.error);
    run.span.end(event.at);
    runs.delete(keyOf(event));
  };

  const record = (event: TelemetryEvent, parent: Context = context.active()): void => {
    if (event.type === 'RunStarted') {
      startRun(event, parent);
      return;
    }
    const run = runs.get(keyOf(event));
    if (run === undefined) return;
    switch (event.type) {
      case 'InferenceStarted':
        modelContext = startChat(run, event, settings);
        break;
      case 'InferenceDelta':
      case 'ReasoningDelta':
      case 'ToolCallDelta':
        recordDelta(run, event);
        break;
      case 'InferenceFinished':
        finishChat(run, event, settings);
        break;
      case 'InferenceFailed':
        failChat(run, event);
        break;
      case 'ApprovalRequested':
        // A paused run stays one span: the wait shows as the time between these two events.
        run.span.addEvent(
          'loopkeeper.approval.requested',
          {
            'loopkeeper.approval.call_ids': event.calls.map((call) => call.callId),
            'loopkeeper.approval.tool_names': event.calls.map((call) => call.toolName),
          },
          event.at,
        );
        break;
      case 'ApprovalDecided':
        run.span.addEvent(
          'loopkeeper.approval.decided',
          {
            'gen_ai.tool.call.id': event.callId,
            'gen_ai.tool.name': event.toolName,
            'loopkeeper.approval.approved': event.approved,
          },
          event.at,
        );
        break;
      case 'ToolCallStarted':
        startTool(run, event, settings);
        break;
      case 'ToolCallProgress':
        recordToolProgress(run, event);
        break;
      case 'ToolCallFinished':
        finishTool(run, event);
        break;
      case 'MutationStarted':
        startMutation(run, event, settings);
        break;
      case 'MutationFinished':
        finishMutation(run, event);
        break;
      case 'CompactionStarted':
        startCompaction(run, event, settings);
        break;
      case 'CompactionFinished':
        finishCompaction(run, event);
        break;
      case 'CompactionFailed':
        failCompaction(run, event);
        break;
      case 'EmergencyPruneApplied':
        recordEmergencyPrune(run, event);
        break;
      case 'ChildLoopEmitted':
        // A child loop (the agent summarizer's) nests under the compaction that runs it.
        if (event.event.type === 'RunStarted') {
          record(event.event, parentContextOf(run));
          runs.get(keyOf(event.event))?.span.setAttribute(LOOPKEEPER_CHILD_SOURCE, event.source);
        } else {
          record(event.event);
        }
        break;
      case 'RunFinished':
        finishRun(run, event);
        break;
    }
  };

  return {
    record: (event, parent) => record(event, parent),
    takeModelContext() {
      const taken = modelContext;
      modelContext = undefined;
      return taken;
    },
    endAll() {
      for (const run of runs.values()) {
        for (const child of openChildren(run)) child.end();
        run.span.end();
      }
      runs.clear();
    },
  };
}
