import type { AnyToolDefinition } from '../tools/types.js';
import { fromChatMessages } from '../transcript/from-chat-messages.js';
import { buildReplayPlan, type ReplayPlan } from './replay-plan.js';
import { createReplayTools } from './replay-tools.js';

export interface RecordedSession extends ReplayPlan {
  /** Tools that answer each recorded call with its recorded output (a recorded error throws). */
  readonly tools: readonly AnyToolDefinition[];
  /** Tool calls in the whole session. */
  readonly toolCalls: number;
}

export interface RecordedSessionOptions {
  /** Recorded OpenAI chat conversations, replayed one after the other as one session. */
  readonly conversations: readonly (readonly unknown[])[];
}

/**
 * Turns recorded conversations into a replayable session for a real loop, offline: the user
 * messages that start each turn, the answers to script (`new ScriptedModel({turns: answers})`)
 * and replay tools that give back the recorded outputs. Conversations must be protocol-valid
 * (`fromChatMessages` refuses them otherwise); system messages are left to the host.
 *
 * @example
 * ```ts
 * import { createAgentLoop, runTurn } from 'loopkeeper';
 * import { recordedSession, ScriptedModel } from 'loopkeeper/testing';
 *
 * const session = recordedSession({
 *   conversations: [
 *     [
 *       { role: 'user', content: 'Hi' },
 *       { role: 'assistant', content: 'Hello!' },
 *     ],
 *   ],
 * });
 * const loop = createAgentLoop({
 *   model: new ScriptedModel({ turns: session.answers }),
 *   tools: session.tools,
 * });
 * loop.start();
 * for (const turn of session.turns) await runTurn(loop, turn.content);
 * ```
 */
export function recordedSession({ conversations }: RecordedSessionOptions): RecordedSession {
  const recordings = conversations.map((messages, index) => ({
    name: `recording ${index + 1}`,
    items: fromChatMessages(messages),
  }));
  const plan = buildReplayPlan({ recordings });
  const toolCalls = plan.answers.reduce((sum, answer) => sum + (answer.toolCalls?.length ?? 0), 0);
  return {
    ...plan,
    tools: createReplayTools({ toolNames: plan.toolNames, outputs: plan.outputs }),
    toolCalls,
  };
}
