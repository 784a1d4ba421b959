/** The `loopkeeper/testing` entry: offline and over-HTTP fakes for testing agent loops. */

export {
  type FakeAnthropicAnswer,
  type FakeAnthropicBrokenStream,
  type FakeAnthropicFault,
  type FakeAnthropicHang,
  type FakeAnthropicHttpError,
  type FakeAnthropicReply,
  type FakeAnthropicReset,
  type FakeAnthropicThinking,
  type FakeAnthropicToolCall,
  fakeAnthropicFaults,
} from './anthropic/fake-anthropic-replies.js';
export {
  type FakeAnthropicHandler,
  type FakeAnthropicRequest,
  type FakeAnthropicServer,
  type FakeAnthropicServerOptions,
  startFakeAnthropicServer,
} from './anthropic/fake-anthropic-server.js';
export type { FakeHttpServer } from './fake-http-server.js';
export {
  type FakeOpenAIServer,
  type FakeOpenAIServerOptions,
  type FakeReplyHandler,
  startFakeOpenAIServer,
} from './fake-openai-server.js';
export {
  type FakeAnswer,
  type FakeFault,
  type FakeHangFault,
  type FakeHttpErrorFault,
  type FakeMalformedJsonFault,
  type FakeRawResponseFault,
  type FakeReply,
  type FakeResetFault,
  type FakeToolCall,
  type FakeTruncatedStreamFault,
  type FakeUsage,
  fakeFaults,
  isFakeFault,
} from './fake-replies.js';
export type { FakeChatRequestBody, FakeRequest, FakeRequestHeaders } from './fake-request.js';
export type {
  FakeResponsesAnswer,
  FakeResponsesReasoning,
  FakeResponsesReply,
  FakeResponsesRequestBody,
} from './fake-responses-replies.js';
export {
  type FakeResponsesHandler,
  type FakeResponsesServer,
  type FakeResponsesServerOptions,
  startFakeResponsesServer,
} from './fake-responses-server.js';
export {
  type CompactionQualityOptions,
  type CompactionQualityReport,
  type FactRecall,
  type LowestRecall,
  type LowestRequestRecall,
  measureCompactionQuality,
  QUALITY_INSTRUCTIONS,
} from './quality/measure-compaction-quality.js';
export {
  type ReplayedRecording,
  type ReplayedRequest,
  type ReplayRecordingOptions,
  replayRecording,
} from './quality/replay-recording.js';
export { type WorkFacts, workFactsOf } from './quality/work-facts.js';
export {
  type RecordedSession,
  type RecordedSessionOptions,
  recordedSession,
} from './recorded-session.js';
export {
  buildReplayPlan,
  type RecordedOutput,
  type Recording,
  type ReplayPlan,
  type ReplayTurn,
} from './replay-plan.js';
export { createReplayTools } from './replay-tools.js';
export { ScriptedModel, type ScriptedModelOptions } from './scripted-model.js';
export type { RecordedChatMessage } from './scripted-replay.js';
export type {
  ScriptedAnswer,
  ScriptedFailure,
  ScriptedToolCall,
  ScriptedTurn,
  ScriptedTurnFunction,
} from './scripted-turns.js';
