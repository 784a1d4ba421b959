import { defineTool } from '../tools/define-tool.js';
import type { AnyToolDefinition } from '../tools/types.js';
import { defaultDetectError } from '../transcript/detect-error.js';
import type { ScriptedAnswer } from './scripted-turns.js';

/** A recorded OpenAI chat message as stored in transcript files. */
interface RecordedMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_calls?: readonly {
    readonly id: string;
    readonly function: { readonly name: string; readonly arguments: string };
  }[];
  readonly tool_call_id?: string;
}

export interface RecordedTurn {
  /** What the user said to start the turn. */
  readonly user: string;
  /** The model's answers in this turn, in order; the last one has no tool calls. */
  readonly answers: readonly ScriptedAnswer[];
}

export interface RecordedSession {
  readonly turns: readonly RecordedTurn[];
  /** Every answer of every turn, in order: the script of a replaying model. */
  readonly answers: readonly ScriptedAnswer[];
  /** Tools that answer each recorded call with its recorded output (an error output throws). */
  readonly tools: readonly AnyToolDefinition[];
  readonly toolCalls: number;
}

export interface RecordedSessionOptions {
  /** One or more recorded conversations, replayed one after the other as one session. */
  readonly conversations: readonly (readonly RecordedMessage[])[];
  /** Text of the final answer scripted when a recorded turn ends on tool calls. */
  readonly closingText?: string;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '',
      )
      .join('');
  }
  return '';
}

/**
 * Turns recorded conversations into a replayable session: the user messages that start each
 * turn, the model answers to script, and replay tools that give back the recorded outputs, so
 * a real loop can re-live a recording offline (system messages are left to the host).
 */
export function recordedSession({
  conversations,
  closingText = 'Done with this step of the recorded session.',
}: RecordedSessionOptions): RecordedSession {
  const turns: { user: string; answers: ScriptedAnswer[] }[] = [];
  const outputs = new Map<string, string>();
  const toolNames = new Set<string>();
  let toolCalls = 0;
  for (const [conversation, messages] of conversations.entries()) {
    // Recordings may reuse call ids (tau-bench does across tasks): scope them per conversation.
    const callId = (id: string) => (conversations.length === 1 ? id : `c${conversation}_${id}`);
    let current: { user: string; answers: ScriptedAnswer[] } | undefined;
    for (const message of messages) {
      if (message.role === 'user') {
        current = { user: textOf(message.content), answers: [] };
        turns.push(current);
      } else if (message.role === 'assistant') {
        if (current === undefined) {
          current = { user: 'Continue.', answers: [] };
          turns.push(current);
        }
        const calls = (message.tool_calls ?? []).map((call) => {
          toolNames.add(call.function.name);
          return {
            id: callId(call.id),
            name: call.function.name,
            arguments: call.function.arguments,
          };
        });
        toolCalls += calls.length;
        const text = textOf(message.content);
        current.answers.push({
          ...(text === '' ? {} : { text }),
          ...(calls.length === 0 ? {} : { toolCalls: calls }),
        });
      } else if (message.role === 'tool' && message.tool_call_id !== undefined) {
        outputs.set(callId(message.tool_call_id), textOf(message.content));
      }
    }
  }
  for (const turn of turns) {
    const last = turn.answers.at(-1);
    if (last === undefined || (last.toolCalls?.length ?? 0) > 0)
      turn.answers.push({ text: closingText });
  }
  const tools = [...toolNames].sort().map((name) =>
    defineTool({
      name,
      description: `Replays the recorded outputs of the "${name}" tool.`,
      parameters: { type: 'object' },
      execute: (_arguments, { callId }) => {
        const output = outputs.get(callId);
        if (output === undefined) throw new Error(`no recorded output for call ${callId}`);
        if (defaultDetectError({ content: output, toolName: name, callId }))
          throw new Error(output);
        return output;
      },
    }),
  );
  return { turns, answers: turns.flatMap((turn) => turn.answers), tools, toolCalls };
}
