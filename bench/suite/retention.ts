import type { Item } from '../../src/index.js';
import { workFactsOf } from '../../src/testing/index.js';

/**
 * What the model can still see of the work, with the quality harness's rules
 * (src/testing/quality/work-facts.ts, whose `workFactsOf` is public): text flattened, a fact
 * visible when its first 160 characters are. The two helpers are re-stated here because the
 * testing entry exports only `workFactsOf`.
 */
export function flatten(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function isVisible(fact: string, visible: string): boolean {
  return visible.includes(flatten(fact).slice(0, 160));
}

function userText(item: Item): string {
  if (item.kind !== 'user') return '';
  return typeof item.content === 'string'
    ? item.content
    : item.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

/** Everything a model reads in a request, whitespace-flattened. */
export function visibleText(instructions: string | undefined, items: readonly Item[]): string {
  const parts: string[] = [instructions ?? ''];
  for (const item of items) {
    if (item.kind === 'user') parts.push(userText(item));
    else if (item.kind === 'context') parts.push(item.text);
    else if (item.kind === 'toolResult') parts.push(item.toolName, item.content);
    else {
      parts.push(item.text ?? '');
      for (const call of item.toolCalls ?? []) parts.push(call.name, call.arguments);
    }
  }
  return flatten(parts.join('\n'));
}

/** Shares of the earlier work still visible in one request; `undefined` where there was none. */
export interface StepRetention {
  readonly goal: number;
  readonly paths: number | undefined;
  readonly errorLines: number | undefined;
  readonly identifiers: number | undefined;
}

/**
 * How much of the work logged before this step (`earlier`: the previous request of an
 * unmanaged session) the request still shows: the goal (the first user message), and the
 * share of its paths, error lines and identifiers.
 */
export function stepRetention({
  earlier,
  request,
  instructions,
}: {
  readonly earlier: readonly Item[];
  readonly request: readonly Item[];
  readonly instructions: string | undefined;
}): StepRetention {
  const visible = visibleText(instructions, request);
  const facts = workFactsOf(earlier);
  const share = (list: readonly string[]) =>
    list.length === 0
      ? undefined
      : list.filter((fact) => isVisible(fact, visible)).length / list.length;
  const goal = earlier.find((item) => item.kind === 'user');
  return {
    goal: goal === undefined || isVisible(visibleText(undefined, [goal]), visible) ? 1 : 0,
    paths: share(facts.paths),
    errorLines: share(facts.errorLines),
    identifiers: share(facts.identifiers),
  };
}

/** Per category, the mean over the steps that had such facts; `overall` is the mean of the four. */
export function averageRetention(steps: readonly StepRetention[]) {
  const mean = (values: readonly (number | undefined)[]) => {
    const defined = values.filter((value): value is number => value !== undefined);
    return defined.length === 0 ? Number.NaN : defined.reduce((a, b) => a + b, 0) / defined.length;
  };
  const goal = mean(steps.map((step) => step.goal));
  const paths = mean(steps.map((step) => step.paths));
  const errorLines = mean(steps.map((step) => step.errorLines));
  const identifiers = mean(steps.map((step) => step.identifiers));
  return {
    goal,
    paths,
    errorLines,
    identifiers,
    overall: (goal + paths + errorLines + identifiers) / 4,
  };
}
