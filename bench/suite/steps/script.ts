import { buildReplayPlan, type ReplayPlan } from '../../../src/testing/index.js';
import { createTokenCounter } from '../../../src/tokens/create-token-counter.js';
import { buildLongSession, type LongSession } from '../long-session.js';

/** One scripted model answer, as every contender's mock model gives it. */
export interface ScriptAnswer {
  readonly text: string | undefined;
  readonly toolCalls: readonly {
    readonly id: string;
    readonly name: string;
    readonly arguments: string;
  }[];
}

/** The session every contender replays: user turns, answers in order, tool outputs by call id. */
export interface StepScript {
  readonly session: LongSession;
  readonly plan: ReplayPlan;
  readonly turns: readonly string[];
  readonly answers: readonly ScriptAnswer[];
  readonly outputs: ReadonlyMap<string, { readonly content: string; readonly isError: boolean }>;
  readonly toolNames: readonly string[];
}

export type SessionShape = 'lean' | 'long';

export async function buildStepScript({
  shape,
  toolCalls = 2_000,
}: {
  readonly shape: SessionShape;
  readonly toolCalls?: number;
}): Promise<StepScript> {
  const counter = await createTokenCounter();
  const session = buildLongSession({ counter, toolCalls, lean: shape === 'lean' });
  const plan = buildReplayPlan({ recordings: [{ name: 'long session', items: session.items }] });
  const answers = plan.answers.map((answer, index): ScriptAnswer => {
    if ('error' in answer || typeof answer === 'function') {
      throw new Error(`bench: answer ${index} is not a plain answer`);
    }
    return {
      text: answer.text,
      toolCalls: (answer.toolCalls ?? []).map((call, callIndex) => ({
        id: call.id ?? `call_${index}_${callIndex}`,
        name: call.name,
        arguments:
          typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      })),
    };
  });
  const turns = plan.turns.map((turn) =>
    typeof turn.content === 'string'
      ? turn.content
      : turn.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n'),
  );
  return { session, plan, turns, answers, outputs: plan.outputs, toolNames: plan.toolNames };
}

/**
 * Times each step: from the model's answer to the next call of the model. `called()` at the
 * top of the mock model's call (the request as the framework hands it over), `answered()` just
 * before it returns.
 */
export class StepClock {
  readonly steps: number[] = [];
  #answeredAt: number | undefined;
  #next = 0;

  called(): void {
    const now = performance.now();
    if (this.#answeredAt !== undefined) this.steps.push(now - this.#answeredAt);
    this.#answeredAt = undefined;
  }

  answered(): void {
    this.#answeredAt = performance.now();
  }

  /** The next scripted answer, or an error once the script is exhausted. */
  next<T>(answers: readonly T[]): T {
    const answer = answers[this.#next];
    if (answer === undefined) throw new Error(`bench: no scripted answer ${this.#next}`);
    this.#next += 1;
    return answer;
  }

  get calls(): number {
    return this.#next;
  }
}
