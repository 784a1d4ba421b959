import type { Tracer } from '@opentelemetry/api';
import type { Item } from '../transcript/types.js';

/** What a traced loop lends the recorder: its effective history, read for sizes and content. */
export interface TracedSession {
  readonly items: readonly Item[];
}

/** The recorder's resolved options, shared by the span handlers. */
export interface RecorderSettings {
  readonly tracer: Tracer;
  readonly agentName: string | undefined;
  readonly providerName: string | undefined;
  readonly captureContent: boolean;
  readonly chatSpans: 'create' | 'none';
  /** The session of an attached loop, when the event comes from one. */
  sessionOf(sessionId: string): TracedSession | undefined;
}
