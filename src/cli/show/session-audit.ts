import type {
  CompactionReason,
  CompactionTier,
  RunOutcome,
  SessionEvent,
} from '../../log/events.js';
import { SessionProjection } from '../../log/projection.js';
import { RunProgress } from '../../runtime/run-progress.js';
import type { TokenCounter } from '../../tokens/types.js';
import type { Item } from '../../transcript/types.js';
import type { SerializedError } from '../../vocabulary/index.js';
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
      readonly error?: SerializedError;
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
  | (EntryBase & { readonly type: 'transcript-replaced'; readonly marker: MarkerAudit })
  | (EntryBase & {
      readonly type: 'tool-calls-started';
      readonly runId: string;
      readonly calls: readonly StartedCallAudit[];
    })
  | (EntryBase & {
      readonly type: 'approval-requested';
      readonly runId: string;
      readonly calls: readonly ApprovalRequestAudit[];
    })
  | (EntryBase & {
      readonly type: 'approval-decided';
      readonly runId: string;
      readonly callId: string;
      /** The tool of the call, when its request is in the log. */
      readonly toolName?: string;
      readonly approved: boolean;
      readonly reason?: string;
      readonly argumentsHash: string;
    });

/** A call named by `tool-calls-started`: it was about to run with arguments of this hash. */
export interface StartedCallAudit {
  readonly callId: string;
  /** The tool the call names, when its assistant item is in the log. */
  readonly toolName?: string;
  readonly argumentsHash: string;
}

/** A call that asked for a person's decision, with the arguments it would run with. */
export interface ApprovalRequestAudit {
  readonly callId: string;
  readonly toolName: string;
  readonly arguments: string;
  readonly argumentsHash: string;
}

/** The session's last run when the log shows it unfinished, and the calls it waits for. */
export interface UnfinishedRunAudit {
  readonly runId: string;
  /** Requested calls with no decision and no result yet: empty when the run does not wait. */
  readonly pendingApprovals: readonly ApprovalRequestAudit[];
}

export interface SessionAudit {
  readonly sessionId: string;
  readonly entries: readonly AuditEntry[];
  readonly effective: { readonly tokens: number; readonly items: readonly AuditItem[] };
  readonly stats: SessionStats;
  /** Null when every run in the log finished. */
  readonly unfinishedRun: UnfinishedRunAudit | null;
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
  // What the last run waits for, read the way the runtime reads it when it resumes.
  const progress = new RunProgress();
  const toolNames = new Map<string, string>();
  for (const event of events) {
    progress.observe(event);
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
        for (const item of event.items) {
          for (const call of item.kind === 'assistant' ? (item.toolCalls ?? []) : []) {
            toolNames.set(call.id, call.name);
          }
        }
        entries.push({ ...base, type: 'items-appended', items: event.items.map(audit) });
        break;
      case 'tool-calls-started':
        entries.push({
          ...base,
          type: 'tool-calls-started',
          runId: event.runId,
          calls: event.calls.map(({ callId, argumentsHash }) => {
            const toolName = toolNames.get(callId);
            return { callId, ...(toolName === undefined ? {} : { toolName }), argumentsHash };
          }),
        });
        break;
      case 'approval-requested':
        entries.push({
          ...base,
          type: 'approval-requested',
          runId: event.runId,
          calls: event.calls.map(approvalRequestAudit),
        });
        break;
      case 'approval-decided': {
        const toolName = toolNames.get(event.callId);
        entries.push({
          ...base,
          type: 'approval-decided',
          runId: event.runId,
          callId: event.callId,
          ...(toolName === undefined ? {} : { toolName }),
          approved: event.approved,
          ...(event.reason === undefined ? {} : { reason: event.reason }),
          argumentsHash: event.argumentsHash,
        });
        break;
      }
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
    unfinishedRun: unfinishedRunOf(progress),
  };
}

function unfinishedRunOf(progress: RunProgress) {
  const run = progress.unfinishedRun;
  if (run === null) return null;
  return { runId: run.runId, pendingApprovals: progress.waiting.map(approvalRequestAudit) };
}

function approvalRequestAudit({
  callId,
  toolName,
  arguments: text,
  argumentsHash,
}: ApprovalRequestAudit): ApprovalRequestAudit {
  return { callId, toolName, arguments: text, argumentsHash };
}
