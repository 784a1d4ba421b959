import { context, type Tracer, trace } from '@opentelemetry/api';
import { ConfigError } from '../errors/config-error.js';
import type { TelemetryEvent } from '../events/telemetry-events.js';
import type { ModelAdapter } from '../model/types.js';
import { safeListener, type TelemetrySource } from '../runtime/telemetry-hub.js';
import type { TracedSession } from './recorder-settings.js';
import { createSpanRecorder } from './span-recorder.js';

export interface GenAiTracingOptions {
  /** Where spans go; by default the global provider's `loopkeeper` tracer. */
  readonly tracer?: Tracer;
  /** `gen_ai.agent.name`, also in the run span's name (`invoke_agent {name}`). */
  readonly agentName?: string;
  /** `gen_ai.provider.name`, e.g. `openai`. */
  readonly providerName?: string;
  /**
   * Record message content (`gen_ai.input.messages`, `gen_ai.output.messages`, tool call
   * arguments). Off by default: content may hold personal data. Sizes are always recorded.
   */
  readonly captureContent?: boolean;
  /**
   * `create` (default): one `chat {model}` span per inference. `none`: no chat spans of ours,
   * for hosts running `@opentelemetry/instrumentation-openai`, whose chat spans then nest under
   * the run when the model is wrapped with `wrapModel`.
   */
  readonly chatSpans?: 'create' | 'none';
  /** Called when recording a span throws; by default the first failure is logged. */
  readonly onError?: (error: unknown) => void;
}

/** A loop to trace: any telemetry source, with its session when it is an agent loop. */
export type TracedLoop = TelemetrySource & {
  readonly session?: TracedSession & { readonly sessionId: string };
};

export interface GenAiTracing {
  /** Records the loop's runs as spans. Returns the function that stops it. */
  attach(loop: TracedLoop): () => void;
  /** Records one event; give it to a telemetry hub (`hub.on('*', tracing.record)`). Never throws. */
  readonly record: (event: TelemetryEvent) => void;
  /** Runs each model call inside its chat span (or, with `chatSpans: 'none'`, the run span). */
  wrapModel(model: ModelAdapter): ModelAdapter;
  /** Ends every span still open, e.g. before the host shuts its tracer provider down. */
  endAll(): void;
}

/**
 * OpenTelemetry spans for agent loops, by the GenAI semantic conventions: one `invoke_agent`
 * span per run, `chat {model}` and `execute_tool {name}` spans under it, compactions as
 * `loopkeeper.compaction` spans and `gen_ai.conversation.compacted` events. It only observes
 * telemetry: a failing tracer never disturbs the loop.
 *
 * @example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 * import { createAgentLoop, openAIChatModel } from 'loopkeeper';
 * import { createGenAiTracing } from 'loopkeeper/otel';
 *
 * const tracing = createGenAiTracing({ tracer: trace.getTracer('my-agent'), agentName: 'helper' });
 * const model = openAIChatModel({
 *   apiKey: process.env['OPENAI_API_KEY'] ?? '',
 *   model: 'gpt-4o-mini',
 * });
 * // The wrapped model runs each call inside its chat span, so HTTP spans nest under it.
 * const loop = createAgentLoop({ model: tracing.wrapModel(model) });
 * tracing.attach(loop);
 * ```
 */
export function createGenAiTracing({
  tracer = trace.getTracer('loopkeeper'),
  agentName,
  providerName,
  captureContent = false,
  chatSpans = 'create',
  onError,
}: GenAiTracingOptions = {}): GenAiTracing {
  if (chatSpans !== 'create' && chatSpans !== 'none') {
    throw new ConfigError(
      `createGenAiTracing: chatSpans must be 'create' or 'none', got ${String(chatSpans)}`,
      {
        code: 'config_invalid_option',
      },
    );
  }
  const sessions = new Map<string, TracedSession>();
  const recorder = createSpanRecorder({
    tracer,
    agentName,
    providerName,
    captureContent,
    chatSpans,
    sessionOf: (sessionId) => sessions.get(sessionId),
  });
  const record = safeListener(
    (event: TelemetryEvent) => recorder.record(event),
    onError === undefined ? undefined : ({ error }) => onError(error),
  );
  return {
    attach(loop) {
      if (typeof loop !== 'object' || loop === null || typeof loop.on !== 'function') {
        throw new ConfigError('attach expects an agent loop (an XState actor with `on`).', {
          code: 'config_invalid_telemetry_source',
        });
      }
      const session = loop.session;
      if (session !== undefined) sessions.set(session.sessionId, session);
      const subscription = loop.on('*', record);
      return () => {
        subscription.unsubscribe();
        if (session !== undefined && sessions.get(session.sessionId) === session) {
          sessions.delete(session.sessionId);
        }
      };
    },
    record,
    wrapModel(model) {
      return {
        name: model.name,
        ...(model.model === undefined ? {} : { model: model.model }),
        // The loop calls generate right after emitting InferenceStarted, in the same tick, so
        // the context taken here is that inference's.
        generate: (request) =>
          context.with(recorder.takeModelContext() ?? context.active(), () =>
            model.generate(request),
          ),
      };
    },
    endAll: () => recorder.endAll(),
  };
}
