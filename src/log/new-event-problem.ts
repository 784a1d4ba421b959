import { itemProviderDataProblem } from '../transcript/provider-data.js';
import { SESSION_EVENT_TYPES } from './events.js';

/** Fields an event offered for appending may carry; none is trusted until checked. */
interface UntrustedEvent {
  readonly type?: unknown;
  readonly runId?: unknown;
  readonly items?: unknown;
  readonly throughSeq?: unknown;
  readonly view?: unknown;
  readonly strategies?: unknown;
  readonly tokensBefore?: unknown;
  readonly tokensAfter?: unknown;
  readonly model?: unknown;
  readonly promptTokens?: unknown;
  readonly completionTokens?: unknown;
  readonly cachedTokens?: unknown;
  readonly estimatedPromptTokens?: unknown;
  readonly outcome?: unknown;
  readonly steps?: unknown;
  readonly calls?: unknown;
  readonly callId?: unknown;
  readonly approved?: unknown;
  readonly reason?: unknown;
  readonly argumentsHash?: unknown;
}

interface UntrustedCall {
  readonly callId?: unknown;
  readonly argumentsHash?: unknown;
  readonly toolName?: unknown;
  readonly arguments?: unknown;
}

interface UntrustedViewEntry {
  readonly ref?: unknown;
  readonly item?: unknown;
}

interface UntrustedItem {
  readonly id?: unknown;
}

/**
 * What is wrong with an event offered for appending, or undefined when it can be stored. Checks
 * the envelope and each type's own fields; item contents are the transcript module's concern,
 * except opaque `providerData` (on reasoning parts and context items), which must survive the log's JSON round trip
 * unchanged (schema version 5), so it is checked here for every store.
 */
export function newEventProblem({
  event: value,
  seq,
}: {
  readonly event: unknown;
  readonly seq: number;
}): string | undefined {
  const event = asObject<UntrustedEvent>(value);
  if (event === undefined) return 'it is not an object';
  const { type } = event;
  if (typeof type !== 'string' || !(SESSION_EVENT_TYPES as readonly string[]).includes(type)) {
    return `unknown event type ${JSON.stringify(type) ?? String(type)} (known: ${SESSION_EVENT_TYPES.join(', ')})`;
  }
  if (event.runId !== undefined && typeof event.runId !== 'string') {
    return 'runId must be a string';
  }
  switch (type) {
    case 'items-appended':
      return itemsProblem(event.items);
    case 'transcript-replaced':
      return replacementProblem({ event, seq });
    case 'usage-reported':
      return usageProblem(event);
    case 'run-started':
      return typeof event.runId === 'string' ? undefined : 'run-started needs a runId';
    case 'run-finished':
      if (typeof event.runId !== 'string') return 'run-finished needs a runId';
      if (typeof event.outcome !== 'string') return 'run-finished needs an outcome';
      return isCount(event.steps) ? undefined : 'steps must be a whole number of 0 or more';
    case 'tool-calls-started':
      return callsProblem(event, false);
    case 'approval-requested':
      return callsProblem(event, true);
    case 'approval-decided':
      return decisionProblem(event);
    default:
      return undefined;
  }
}

/** The durable-run events' call lists: each names a call id and its arguments hash. */
function callsProblem(event: UntrustedEvent, withCall: boolean): string | undefined {
  if (typeof event.runId !== 'string') return `${String(event.type)} needs a runId`;
  if (!Array.isArray(event.calls) || event.calls.length === 0) {
    return 'calls must be a non-empty array';
  }
  for (const [index, value] of event.calls.entries()) {
    const call = asObject<UntrustedCall>(value);
    if (call === undefined || typeof call.callId !== 'string' || call.callId === '') {
      return `call ${index} needs a callId`;
    }
    if (typeof call.argumentsHash !== 'string') return `call ${index} needs an argumentsHash`;
    if (withCall && (typeof call.toolName !== 'string' || typeof call.arguments !== 'string')) {
      return `call ${index} needs a toolName and its arguments as a string`;
    }
  }
  return undefined;
}

function decisionProblem(event: UntrustedEvent): string | undefined {
  if (typeof event.runId !== 'string') return 'approval-decided needs a runId';
  if (typeof event.callId !== 'string' || event.callId === '') {
    return 'approval-decided needs a callId';
  }
  if (typeof event.approved !== 'boolean') return 'approved must be true or false';
  if (event.reason !== undefined && typeof event.reason !== 'string') {
    return 'reason must be a string';
  }
  return typeof event.argumentsHash === 'string'
    ? undefined
    : 'approval-decided needs an argumentsHash';
}

function itemsProblem(items: unknown): string | undefined {
  if (!Array.isArray(items)) return 'items must be an array';
  const index = items.findIndex((item) => !hasStringId(item));
  if (index !== -1) return `item ${index} is not an object with a string id`;
  for (const [itemIndex, item] of items.entries()) {
    const problem = itemProviderDataProblem(item);
    if (problem !== undefined) return `item ${itemIndex}: ${problem}`;
  }
  return undefined;
}

function replacementProblem({
  event,
  seq,
}: {
  readonly event: UntrustedEvent;
  readonly seq: number;
}): string | undefined {
  const { throughSeq, view } = event;
  if (!isCount(throughSeq) || throughSeq >= seq) {
    return `throughSeq must be a whole number below the marker's own seq ${seq}, got ${String(throughSeq)}`;
  }
  if (!Array.isArray(view)) return 'view must be an array';
  const index = view.findIndex((value) => {
    const entry = asObject<UntrustedViewEntry>(value);
    return entry === undefined || (typeof entry.ref !== 'string' && !hasStringId(entry.item));
  });
  if (index !== -1) return `view entry ${index} is neither {ref} nor {item} with a string id`;
  for (const [entryIndex, value] of view.entries()) {
    const problem = itemProviderDataProblem(asObject<UntrustedViewEntry>(value)?.item);
    if (problem !== undefined) return `view entry ${entryIndex}: ${problem}`;
  }
  if (!isCount(event.tokensBefore)) return 'tokensBefore must be a whole number of 0 or more';
  if (!isCount(event.tokensAfter)) return 'tokensAfter must be a whole number of 0 or more';
  return Array.isArray(event.strategies) ? undefined : 'strategies must be an array';
}

function usageProblem(event: UntrustedEvent): string | undefined {
  if (typeof event.model !== 'string') return 'usage-reported needs a model';
  const counts = {
    promptTokens: event.promptTokens,
    completionTokens: event.completionTokens,
    cachedTokens: event.cachedTokens ?? 0,
    estimatedPromptTokens: event.estimatedPromptTokens ?? 0,
  };
  const wrong = Object.entries(counts).find(([, value]) => !isCount(value));
  return wrong === undefined ? undefined : `${wrong[0]} must be a whole number of 0 or more`;
}

function hasStringId(value: unknown): boolean {
  return typeof asObject<UntrustedItem>(value)?.id === 'string';
}

function asObject<T extends object>(value: unknown): T | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as T)
    : undefined;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
