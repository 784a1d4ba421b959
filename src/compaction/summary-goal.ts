import { parseSummarySections, SUMMARY_SECTIONS } from './summary.js';

/** Labels the goal line: the user's first request, carried from summary to summary unchanged. */
export const GOAL_LABEL = 'First request (verbatim):';

function flatten(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The goal line as it stands first under `## Goal`. */
export function goalLine(goal: string): string {
  return `- ${GOAL_LABEL} ${flatten(goal)}`;
}

/** The goal a summary recorded, or undefined when it has none. */
export function recordedGoal(summaryText: string): string | undefined {
  const goal = parseSummarySections(summaryText).Goal ?? '';
  const prefix = `- ${GOAL_LABEL} `;
  const line = goal.split('\n').find((candidate) => candidate.trim().startsWith(prefix));
  return line === undefined ? undefined : line.trim().slice(prefix.length);
}

/**
 * The summary with `goal` as the first line of its Goal section, verbatim (whitespace
 * flattened). Whatever the backend wrote about the goal stays below it: a model may
 * paraphrase the request, but the record of what the user asked for never drifts.
 */
export function withGoal(summaryText: string, goal: string): string {
  const line = goalLine(goal);
  const sections = parseSummarySections(summaryText);
  const goalLines = (sections.Goal ?? '')
    .split('\n')
    .filter((candidate) => candidate.trim() !== '' && !candidate.includes(GOAL_LABEL));
  if ((sections.Goal ?? '').split('\n')[0]?.trim() === line && !goalLines.includes(line)) {
    return summaryText;
  }
  return SUMMARY_SECTIONS.map((name) => {
    const body = name === 'Goal' ? [line, ...goalLines].join('\n') : (sections[name] ?? '');
    return `## ${name}\n${body.trim()}`;
  }).join('\n\n');
}
