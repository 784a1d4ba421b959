import type { TokenCounter } from '../../tokens/types.js';
import type { Item } from '../../transcript/types.js';
import { parseSummarySections, SUMMARY_SECTIONS } from '../summary.js';
import { SUMMARY_SHARES } from '../summary-fit.js';
import { ArtifactLedger } from './artifact-ledger.js';
import { renderArtifactTrail } from './render-trail.js';

export interface WithArtifactTrailOptions {
  /** A sectioned summary text (the backend's, goal applied). */
  readonly text: string;
  readonly ledger: ArtifactLedger;
  /** The most tokens the trail may take; the summary's fit may cut it further, from its end. */
  readonly maxTokens: number;
  readonly tokens: TokenCounter;
  /**
   * Whether the ledger holds the whole session (the loop's): then lines an earlier trail left in
   * the summary are dropped, as the fresh trail ranks the same facts anew.
   */
  readonly complete?: boolean;
  /** What the model reads beside the summary; facts it spells out are not listed (`renderArtifactTrail`). */
  readonly visible?: string;
}

/** Lines in the trail's own formats: files by action, a command, errors of a step, identifiers, a cut note. */
const trailLinePattern =
  /^- (?:(?:created|edited|read|used|mentioned): .+|\$ .+ → (?:ok|failed|pending) \(step \d+.*\)|(?:step \d+(?:, fixed later)?|fixed later): .+|ids: .+|\(\d+ lines? cut.*\))$/;

/** A call line of the extractive backend's progress, as written or folded: ``bash: `ls -la` ``. */
const callLinePattern = /^(?:Earlier: )?[\w.-]+: `(.+)`$/;
/** The heading of its list of calls, as written or folded from an earlier summary. */
const callsHeadingPattern = /^(?:Earlier: )?Calls made\b[^:]*:$/;

const flat = (line: string): string =>
  line
    .replace(/^\s*[-*+]\s+/, '')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * The summary with the artifact trail rendered from `ledger` leading "Files and artifacts" and
 * "Errors seen" (most important first), and the backend's lines that only repeat a path, an
 * error line, a command or identifiers the trail shows left out, so a fact is not paid for
 * twice. The backend's other lines follow the trail's; the summary's fit cuts from the end.
 */
export function withArtifactTrail({
  text,
  ledger,
  maxTokens,
  tokens,
  complete = false,
  visible,
}: WithArtifactTrailOptions): string {
  const trail = renderArtifactTrail({
    ledger: ledger.toJSON(),
    maxTokens,
    tokens,
    ...(visible === undefined ? {} : { visible }),
  });
  if (trail.artifacts.length === 0 && trail.errors.length === 0) return text;
  const shownText = [...trail.artifacts, ...trail.errors].join('\n');
  const shownIds = new Set<string>();
  for (const line of trail.artifacts) {
    const ids = /^ids: (.*)$/.exec(flat(line))?.[1];
    if (ids !== undefined) for (const id of ids.split(', ')) shownIds.add(id);
  }
  const repeats = (line: string): boolean => {
    if (complete && trailLinePattern.test(line.trim())) return true;
    const body = flat(line)
      .replace(/^(?:step \d+(?:, fixed later)?|fixed later): /, '')
      .replace(/^(?:created|edited|read|used|mentioned): /, '');
    return body === '' || shownText.includes(body.replace(/…$/, '').slice(0, 160));
  };
  const sections = parseSummarySections(text);
  const files = (sections['Files and artifacts'] ?? '').split('\n').flatMap((line) => {
    const ids = /^(?:Identifiers:|ids:)\s*(.*)$/.exec(flat(line))?.[1];
    if (ids === undefined) {
      // With the whole session's ledger, a bare path the trail does not list was only seen in
      // an output (a directory listing, a file's contents): running the tool again shows it.
      if (complete && /^\S+$/.test(flat(line)) && !/^\(.*\)$/.test(flat(line))) return [];
      return repeats(line) ? [] : [line];
    }
    const left = ids
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== '' && !shownIds.has(id));
    return left.length === 0 ? [] : [`- Identifiers: ${left.join(', ')}`];
  });
  // A call line of the backend's progress whose command the trail shows says nothing more;
  // a "Calls made" heading left with no call line after it goes with them.
  const calls = (sections.Progress ?? '').split('\n').filter((line) => {
    const command = callLinePattern.exec(flat(line))?.[1];
    return command === undefined || !shownText.includes(command.replace(/…$/, ''));
  });
  const progress = calls.filter(
    (line, index) =>
      !callsHeadingPattern.test(flat(line)) || callLinePattern.test(flat(calls[index + 1] ?? '')),
  );
  // With the whole session's ledger, an error line of the backend the trail does not show ranks
  // below the trail's own when the trail ran out of room: its room goes to those.
  const errors = (sections['Errors seen'] ?? '')
    .split('\n')
    .filter((line) => !repeats(line) && !(complete && trail.omitted > 0));
  const lead = (lines: readonly string[], rest: readonly string[]): string =>
    [...lines, ...rest.filter((line) => !/^- None\.?$/.test(line.trim()))].join('\n').trim();
  const bodies: Record<string, string> = {
    ...sections,
    Progress: progress.join('\n').trim(),
    'Files and artifacts': lead(trail.artifacts, files),
    'Errors seen': lead(trail.errors, errors),
  };
  return SUMMARY_SECTIONS.map((name) => `## ${name}\n${(bodies[name] ?? '').trim()}`).join('\n\n');
}

/** The share of a summary's cap the trail is rendered to; the fit then holds each section to its share. */
const trailRenderShare = 0.8;

/**
 * The summary cap the artifact trail asks for: `baseCap` (the summary's share of the target),
 * raised to what the trail of `ledger` needs, up to the whole target: the kept tail then holds
 * only what every tier keeps (the latest request and the newest exchange), and verbatim older
 * turns give way to the facts they no longer hold. On a small window this is what keeps the
 * older errors, paths and identifiers.
 */
export function summaryCapForTrail({
  baseCap,
  targetTokens,
  frameTokens,
  ledger,
  tokens,
}: {
  readonly baseCap: number;
  readonly targetTokens: number;
  /** What the summary spends besides its content (headings, cut notes). */
  readonly frameTokens: number;
  readonly ledger: ArtifactLedger;
  readonly tokens: TokenCounter;
}): number {
  const ceiling = targetTokens;
  if (baseCap >= ceiling) return baseCap;
  const trail = renderArtifactTrail({ ledger: ledger.toJSON(), maxTokens: ceiling, tokens });
  const lines = [...trail.artifacts, ...trail.errors];
  if (lines.length === 0) return baseCap;
  const need = tokens.countText(lines.join('\n')) + lines.length;
  return Math.min(ceiling, Math.max(baseCap, frameTokens + Math.ceil(need / trailRenderShare)));
}

export interface SummaryWithTrailOptions {
  readonly text: string;
  /** The loop's ledger; without one, a ledger of `items` is rendered. */
  readonly ledger: ArtifactLedger | undefined;
  readonly items: readonly Item[];
  /** The ledger of `items`, when the caller made it already (it is then not made again). */
  readonly itemsLedger?: ArtifactLedger;
  /** The summary's cap. */
  readonly maxTokens: number;
  readonly tokens: TokenCounter;
  /** The items the compaction keeps beside the summary: facts they show are not listed again. */
  readonly kept?: readonly Item[];
}

/**
 * A summary text with its artifact trail, from the loop's ledger or else from a ledger of the
 * items seen (then the earlier trail stays among the backend's folded lines).
 */
export function summaryWithTrail({
  text,
  ledger,
  items,
  maxTokens,
  tokens,
  kept,
  itemsLedger,
}: SummaryWithTrailOptions): string {
  return withArtifactTrail({
    text,
    ledger: ledger ?? itemsLedger ?? ledgerOf(items),
    maxTokens: trailRoom(text, maxTokens, tokens),
    tokens,
    complete: ledger !== undefined,
    ...(kept === undefined ? {} : { visible: keptText(kept) }),
  });
}

/** The sections the trail does not lead. */
const otherSections = ['Goal', 'Decisions and constraints', 'Progress', 'Next step'] as const;
/** A heading line (`## Files and artifacts` and its line break): at most 6 tokens in o200k. */
const headingTokens = 6;

/**
 * The room the trail is rendered to: what the summary's other sections leave of `maxTokens`,
 * each counted at what it needs up to its guaranteed share with its heading (an empty section
 * is not sent, heading and all), so the trail takes what they do not use and at least 80% of
 * the cap when they are full.
 */
function trailRoom(text: string, maxTokens: number, tokens: TokenCounter): number {
  const sections = parseSummarySections(text);
  let others = 2 * headingTokens;
  for (const name of otherSections) {
    const body = sections[name] ?? '';
    if (body === '') continue;
    const need = tokens.countText(body) + body.split('\n').length;
    others += headingTokens + Math.min(need, Math.floor(maxTokens * SUMMARY_SHARES[name]));
  }
  return Math.max(Math.floor(maxTokens * trailRenderShare), maxTokens - others);
}

/** A ledger of some items, for a strategy the loop gave none. Deterministic, like the loop's. */
export function ledgerOf(items: readonly Item[]): ArtifactLedger {
  const ledger = new ArtifactLedger();
  ledger.append(items);
  return ledger;
}

/** The text of kept items a model reads: requests, answers, tool arguments and outputs, context. */
function keptText(items: readonly Item[]): string {
  const parts: string[] = [];
  for (const item of items) {
    if (item.kind === 'user') {
      parts.push(
        typeof item.content === 'string'
          ? item.content
          : item.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n'),
      );
    } else if (item.kind === 'assistant') {
      parts.push(item.text ?? '', ...(item.toolCalls ?? []).map((call) => call.arguments));
    } else if (item.kind === 'toolResult') {
      parts.push(item.content);
    } else {
      parts.push(item.text);
    }
  }
  return parts.join('\n');
}
