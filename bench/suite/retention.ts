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

/** Output lines shorter than this, after flattening, are too common to say anything. */
export const OUTPUT_LINE_MIN_CHARACTERS = 12;

/** The non-trivial lines of one tool output, whitespace-flattened, each once. */
export function linesOfOutput(content: string): string[] {
  const lines = new Set<string>();
  for (const raw of content.split('\n')) {
    const line = flatten(raw);
    if (line.length >= OUTPUT_LINE_MIN_CHARACTERS && /[A-Za-z]/.test(line)) lines.add(line);
  }
  return [...lines];
}

/**
 * What the earlier tool outputs printed, output by output: each line whitespace-flattened, kept
 * when it has at least {@link OUTPUT_LINE_MIN_CHARACTERS} characters and a letter (so rulers,
 * blank and number-only lines are left out), each once per output. Unlike `workFactsOf`, this
 * follows no pattern a summarizer could be built around.
 */
export function outputLinesOf(items: readonly Item[]): { callId: string; lines: string[] }[] {
  return items.flatMap((item) =>
    item.kind === 'toolResult' ? [{ callId: item.callId, lines: linesOfOutput(item.content) }] : [],
  );
}

/** One request, the work logged before it, and the instructions sent with it. */
export interface RequestAgainstEarlier {
  readonly earlier: readonly Item[];
  readonly request: readonly Item[];
  readonly instructions: string | undefined;
}

/**
 * The share of the earlier outputs' lines a request still shows. A line counts where the
 * request shows all of it (not its first 160 characters, as a fact: many outputs are one long
 * line, and a clipped copy that shows its head does not show the line) in the output's own
 * place, the output or a changed copy of it (same call id: a placeholder, a clipped copy), or in
 * an item that is no tool output (a summary, the agent's own words) or the instructions; another
 * output printing the same line does not count for it, so a session that repeats its recordings
 * is not credited with lines the newest copy prints again. Each item is searched on its own.
 */
export function outputLineShare({
  earlier,
  request,
  instructions,
}: RequestAgainstEarlier): number | undefined {
  const own = new Map<string, string>();
  const free = [flatten(instructions ?? '')];
  for (const item of request) {
    if (item.kind === 'toolResult') own.set(item.callId, visibleText(undefined, [item]));
    else free.push(visibleText(undefined, [item]));
  }
  let total = 0;
  let shown = 0;
  for (const { callId, lines } of outputLinesOf(earlier)) {
    const place = own.get(callId) ?? '';
    for (const line of lines) {
      total += 1;
      if (place.includes(line) || free.some((text) => text.includes(line))) shown += 1;
    }
  }
  return total === 0 ? undefined : shown / total;
}

/** Shares of the earlier work still visible in one request; `undefined` where there was none. */
export interface StepRetention {
  readonly goal: number;
  readonly paths: number | undefined;
  readonly errorLines: number | undefined;
  readonly identifiers: number | undefined;
  /** The share of the earlier tool outputs' lines ({@link outputLineShare}); not part of "kept". */
  readonly outputLines: number | undefined;
}

/**
 * How much of the work logged before this step (`earlier`: the previous request of an
 * unmanaged session) the request still shows: the goal (the first user message), the share of
 * its paths, error lines and identifiers, and the share of its tool outputs' lines.
 */
export function stepRetention({
  earlier,
  request,
  instructions,
}: RequestAgainstEarlier): StepRetention {
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
    outputLines: outputLineShare({ earlier, request, instructions }),
  };
}

/**
 * Per category, the mean over the steps that had such facts; `overall` is the mean of the four
 * fact categories (goal, paths, error lines, identifiers). Output lines are reported beside it
 * and left out of it.
 */
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
    outputLines: mean(steps.map((step) => step.outputLines)),
    overall: (goal + paths + errorLines + identifiers) / 4,
  };
}
