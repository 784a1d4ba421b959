import type {
  CompactionReason,
  CompactionTier,
  RunOutcome,
  SessionEvent,
} from '../../log/events.js';
import { SessionProjection } from '../../log/projection.js';
import type { TokenCounter } from '../../tokens/types.js';
import type { Item } from '../../transcript/types.js';
import { type SessionStats, summarizeSession } from '../session-stats.js';
import { type AuditItem, toAuditItem } from './audit-item.js';

interface EntryBase {
  readonly seq: number;
  readonly at: string;
  readonly runId?: string;
}

/** What one compaction marker did to the effective history it replaced. */
export interface MarkerAudit {
  readonly reason: CompactionReason;
  readonly tier: CompactionTier;
  readonly strategies: readonly string[];
  readonly throughSeq: number;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** Items before the marker, and after it. */
  readonly itemsBefore: number;
  readonly itemsAfter: number;
  /** Items of the previous effective history that are gone from the new one. */
  readonly dropped: readonly AuditItem[];
  /** Items replaced by a shorter copy (a pruned tool output, for example). */
  readonly pruned: readonly { readonly original: AuditItem; readonly copy: AuditItem }[];
  /** Ids the view kept as they were. */
  readonly kept: readonly string[];
  /** New items the marker holds (a summary). */
  readonly added: readonly AuditItem[];
}

export type AuditEntry =
  | (EntryBase & { readonly type: 'run-started'; readonly runId: string })
  | (EntryBase & {
      readonly type: 'run-finished';
      readonly runId: string;
      readonly outcome: RunOutcome;
      readonly steps: number;
      readonly error?: { readonly name: string; readonly code: string; readonly message: string };
    })
  | (EntryBase & { readonly type: 'items-appended'; readonly items: readonly AuditItem[] })
  | (EntryBase & {
      readonly type: 'usage-reported';
      readonly model: string;
      readonly promptTokens: number;
      readonly completionTokens: number;
      readonly cachedTokens?: number;
      readonly estimatedPromptTokens?: number;
    })
  | (EntryBase & { readonly type: 'transcript-replaced'; readonly marker: MarkerAudit });

export interface SessionAudit {
  readonly sessionId: string;
  readonly entries: readonly AuditEntry[];
  readonly effective: { readonly tokens: number; readonly items: readonly AuditItem[] };
  readonly stats: SessionStats;
}

/**
 * The audit view of a session log: every event in order, each compaction marker resolved
 * against the history it replaced, and the effective history at the end with token counts.
 * Pure over the events, so `show` and its tests read the same thing.
 */
export function buildSessionAudit({
  sessionId,
  events,
  tokens,
}: {
  sessionId: string;
  events: readonly SessionEvent[];
  tokens: TokenCounter;
}): SessionAudit {
  const projection = new SessionProjection();
  const entries: AuditEntry[] = [];
  const audit = (item: Item) => toAuditItem({ item, tokens });
  for (const event of events) {
    const base = {
      seq: event.seq,
      at: event.at,
      ...(event.runId === undefined ? {} : { runId: event.runId }),
    };
    if (event.type === 'transcript-replaced') {
      const before = projection.items;
      projection.apply(event);
      const after = projection.items;
      const afterIds = new Set(after.map((item) => item.id));
      const copies = event.view.flatMap((entry) =>
        'item' in entry && entry.replaces !== undefined
          ? [{ copy: entry.item, replaces: entry.replaces }]
          : [],
      );
      const replacedIds = new Set(copies.map((copy) => copy.replaces));
      const beforeById = new Map(before.map((item) => [item.id, item]));
      entries.push({
        ...base,
        type: 'transcript-replaced',
        marker: {
          reason: event.reason,
          tier: event.tier,
          strategies: event.strategies,
          throughSeq: event.throughSeq,
          tokensBefore: event.tokensBefore,
          tokensAfter: event.tokensAfter,
          itemsBefore: before.length,
          itemsAfter: after.length,
          dropped: before
            .filter((item) => !afterIds.has(item.id) && !replacedIds.has(item.id))
            .map(audit),
          pruned: copies.flatMap(({ copy, replaces }) => {
            const original = beforeById.get(replaces);
            return original === undefined ? [] : [{ original: audit(original), copy: audit(copy) }];
          }),
          kept: event.view.flatMap((entry) => ('ref' in entry ? [entry.ref] : [])),
          added: event.view.flatMap((entry) =>
            'item' in entry && entry.replaces === undefined ? [audit(entry.item)] : [],
          ),
        },
      });
      continue;
    }
    projection.apply(event);
    switch (event.type) {
      case 'run-started':
        entries.push({ ...base, type: 'run-started', runId: event.runId });
        break;
      case 'run-finished':
        entries.push({
          ...base,
          type: 'run-finished',
          runId: event.runId,
          outcome: event.outcome,
          steps: event.steps,
          ...(event.error === undefined ? {} : { error: event.error }),
        });
        break;
      case 'items-appended':
        entries.push({ ...base, type: 'items-appended', items: event.items.map(audit) });
        break;
      case 'usage-reported':
        entries.push({
          ...base,
          type: 'usage-reported',
          model: event.model,
          promptTokens: event.promptTokens,
          completionTokens: event.completionTokens,
          ...(event.cachedTokens === undefined ? {} : { cachedTokens: event.cachedTokens }),
          ...(event.estimatedPromptTokens === undefined
            ? {}
            : { estimatedPromptTokens: event.estimatedPromptTokens }),
        });
        break;
    }
  }
  return {
    sessionId,
    entries,
    effective: { tokens: tokens.count(projection.items), items: projection.items.map(audit) },
    stats: summarizeSession({ events, tokens }),
  };
}
