import { appendFileSync } from 'node:fs';
import type { ModelAdapter } from 'loopkeeper';
import type { ModelRequest, ModelResponse } from 'loopkeeper/model';
import { abortableDelay } from '../../../src/testing/abortable-delay.js';

/** One model answer of a plan: wait, then call tools or answer. */
export interface PlanStep {
  readonly delayMs?: number;
  readonly tools?: readonly {
    readonly label: string;
    readonly delayMs?: number;
    readonly outputBytes?: number;
    /** Call `approved_effect`, which waits for a person's approval, instead of `effect`. */
    readonly approval?: boolean;
    /** Call `once_effect`, which is not idempotent, instead of `effect`. */
    readonly once?: boolean;
  }[];
  readonly text?: string;
}

/**
 * A stateless scripted model for workers: a user message that is JSON `{plan: [...]}` is
 * answered step by step (step n = the n-th answer after that message), anything else is echoed.
 * Every call is written to the effects file, with the worker's pid, so tests can see where and
 * how often it ran.
 */
export function planModel({ effectsFile }: { readonly effectsFile?: string }): ModelAdapter {
  return {
    name: 'plan-model',
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const { transcript } = request;
      const userIndex = transcript.findLastIndex((item) => item.kind === 'user');
      const user = transcript[userIndex];
      const text = user?.kind === 'user' && typeof user.content === 'string' ? user.content : '';
      const step = transcript
        .slice(userIndex + 1)
        .filter((item) => item.kind === 'assistant').length;
      const plan = parsePlan(text);
      // The user item's id names the run in the effects file; it is the same on every attempt.
      const runKey = user?.id ?? '';
      if (plan === undefined) return { text: `echo: ${text}`, model: 'plan-model' };
      const answer = plan[step] ?? { text: 'plan finished' };
      const mark = (phase: string) =>
        effectsFile !== undefined &&
        appendFileSync(effectsFile, `model ${phase} ${runKey} ${step} ${process.pid}\n`);
      mark('start');
      if (answer.delayMs !== undefined) {
        await abortableDelay({ milliseconds: answer.delayMs, signal: request.signal });
      }
      mark('end');
      if (answer.tools !== undefined && answer.tools.length > 0) {
        return {
          model: 'plan-model',
          toolCalls: answer.tools.map(({ approval, once, ...tool }, index) => ({
            id: `call_${runKey}_${step}_${index}`,
            name: approval === true ? 'approved_effect' : once === true ? 'once_effect' : 'effect',
            arguments: JSON.stringify(tool),
          })),
        };
      }
      return { text: answer.text ?? 'done', model: 'plan-model' };
    },
  };
}

function parsePlan(text: string): readonly PlanStep[] | undefined {
  if (!text.startsWith('{')) return undefined;
  const parsed = JSON.parse(text) as { plan?: readonly PlanStep[] };
  return parsed.plan;
}
