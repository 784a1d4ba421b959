import type { AssistantItem, Item, UserItem } from '../transcript/types.js';
import type { ScriptedAnswer } from './scripted-turns.js';

/** One recorded agent run, as items (for example from `fromChatMessages`). */
export interface Recording {
  readonly name: string;
  readonly items: readonly Item[];
}

/** One user message of the replay and the recording it came from. */
export interface ReplayTurn {
  readonly recording: string;
  readonly content: UserItem['content'];
}

/** A long session made of several recordings, ready to feed a scripted model and replay tools. */
export interface ReplayPlan {
  /** Each becomes one `runTurn`, in order. */
  readonly turns: readonly ReplayTurn[];
  /** The scripted model's answers, one per request, in order. */
  readonly answers: readonly ScriptedAnswer[];
  /** Recorded tool output by (session-unique) call id. */
  readonly outputs: ReadonlyMap<string, RecordedOutput>;
  /** Every tool name the recordings call. */
  readonly toolNames: readonly string[];
}

/** What a tool answered in the recording. */
export interface RecordedOutput {
  readonly content: string;
  readonly isError: boolean;
}

/** Said by the scripted model when a recorded turn stops on tool calls, so the run ends cleanly. */
export const CLOSING_ANSWER = 'Done with this step of the recorded session.';

/** Opens a turn the recording continued without a user message in between. */
export const CONTINUE_MESSAGE = 'Continue.';

/**
 * Turns recordings into one session. Every user message starts a turn whose answers are the
 * assistant messages up to the next user message. A turn that would end on tool calls (the
 * recording stopped there) gets a short closing answer; the recordings' system prompts are
 * left out, because the demo's loop has its own instructions. Call ids get a per-recording
 * prefix: ids are unique within a recording but not across them, and the session needs both.
 *
 * @example
 * ```ts
 * import { buildReplayPlan } from 'loopkeeper/testing';
 * import { fromChatMessages } from 'loopkeeper';
 *
 * const plan = buildReplayPlan({
 *   recordings: [
 *     {
 *       name: 'greeting',
 *       items: fromChatMessages([
 *         { role: 'user', content: 'Hi' },
 *         { role: 'assistant', content: 'Hello!' },
 *       ]),
 *     },
 *   ],
 * });
 * console.log(plan.turns.length, plan.answers.length); // 1 1
 * ```
 */
export function buildReplayPlan({ recordings }: { recordings: readonly Recording[] }): ReplayPlan {
  const turns: ReplayTurn[] = [];
  const answers: ScriptedAnswer[] = [];
  const outputs = new Map<string, RecordedOutput>();
  const toolNames = new Set<string>();

  recordings.forEach((recording, index) => {
    const prefix = `r${index + 1}_`;
    let inTurn = false;
    // Whether the current turn still lacks a final text answer.
    let needsClosingAnswer = false;
    const closeTurn = () => {
      if (inTurn && needsClosingAnswer) answers.push({ text: CLOSING_ANSWER });
      inTurn = false;
    };
    for (const item of recording.items) {
      if (item.kind === 'user') {
        closeTurn();
        turns.push({ recording: recording.name, content: item.content });
        inTurn = true;
        needsClosingAnswer = true;
      } else if (item.kind === 'assistant') {
        if (!inTurn) {
          // The run already ended on a text answer and the recording goes on by itself.
          turns.push({ recording: recording.name, content: CONTINUE_MESSAGE });
          inTurn = true;
        }
        const answer = toAnswer({ item, prefix, toolNames });
        answers.push(answer);
        needsClosingAnswer = answer.toolCalls !== undefined;
        if (!needsClosingAnswer) inTurn = false;
      } else if (item.kind === 'toolResult') {
        outputs.set(`${prefix}${item.callId}`, { content: item.content, isError: item.isError });
      }
    }
    closeTurn();
  });
  return { turns, answers, outputs, toolNames: [...toolNames].sort() };
}

function toAnswer({
  item,
  prefix,
  toolNames,
}: {
  item: AssistantItem;
  prefix: string;
  toolNames: Set<string>;
}): ScriptedAnswer {
  const toolCalls = (item.toolCalls ?? []).map((call) => {
    toolNames.add(call.name);
    return { id: `${prefix}${call.id}`, name: call.name, arguments: call.arguments };
  });
  return {
    ...(item.text !== undefined && { text: item.text }),
    ...(item.reasoning !== undefined && item.reasoning.length > 0 && { reasoning: item.reasoning }),
    ...(toolCalls.length > 0 && { toolCalls }),
  };
}
