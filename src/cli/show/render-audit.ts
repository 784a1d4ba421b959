import { formatCount, formatQuantity, preview } from '../output/format.js';
import type { Style } from '../output/style.js';
import { renderTable } from '../output/table.js';
import type { AuditItem } from './audit-item.js';
import type { AuditEntry, MarkerAudit, SessionAudit, UnfinishedRunAudit } from './session-audit.js';

/** The audit view as text: a header, every event in order, then the effective history. */
export function renderSessionAudit({
  audit,
  path,
  style,
}: {
  audit: SessionAudit;
  path: string;
  style: Style;
}): string {
  const { stats } = audit;
  const lines: string[] = [
    style.bold(`Session ${audit.sessionId}`),
    `Log: ${path}`,
    `${stats.runs} runs, ${stats.steps} model requests, ${stats.items} items (${formatCount(stats.fullHistoryTokens)} tokens), ${stats.compactions} compaction markers; ${formatCount(stats.tokensSent)} prompt tokens sent of ${formatCount(stats.tokensSeen)} without compaction.`,
    '',
    style.bold('Events'),
  ];
  for (const entry of audit.entries) lines.push(...renderEntry(entry, style));
  if (audit.unfinishedRun !== null)
    lines.push('', ...renderUnfinishedRun(audit.unfinishedRun, style));
  lines.push(
    '',
    style.bold(
      `Effective history: ${audit.effective.items.length} items, ${formatCount(audit.effective.tokens)} tokens`,
    ),
    renderTable({
      columns: [
        { header: '#', align: 'right' },
        { header: 'kind' },
        { header: 'id' },
        { header: 'tokens', align: 'right' },
        { header: 'content' },
      ],
      rows: audit.effective.items.map((item, index) => [
        String(index + 1),
        item.kind,
        item.id,
        formatCount(item.tokens),
        describeItem(item),
      ]),
    }),
  );
  return lines.join('\n');
}

function renderEntry(entry: AuditEntry, style: Style): string[] {
  const head = `#${entry.seq}`.padStart(6);
  const time = style.dim(entry.at.slice(11, 23));
  switch (entry.type) {
    case 'run-started':
      return [`${head} ${time} run started      ${entry.runId}`];
    case 'run-finished': {
      const error =
        entry.error === undefined ? '' : `: ${entry.error.name}: ${entry.error.message}`;
      const outcome =
        entry.outcome === 'completed' ? style.green(entry.outcome) : style.red(entry.outcome);
      return [
        `${head} ${time} run finished     ${entry.runId} ${outcome} after ${formatQuantity(entry.steps, 'step')}${error}`,
      ];
    }
    case 'usage-reported': {
      const estimate =
        entry.estimatedPromptTokens === undefined
          ? ''
          : ` (estimate ${formatCount(entry.estimatedPromptTokens)})`;
      const cached =
        entry.cachedTokens === undefined ? '' : `, cached ${formatCount(entry.cachedTokens)}`;
      return [
        `${head} ${time} usage            prompt ${formatCount(entry.promptTokens)}${estimate}, completion ${formatCount(entry.completionTokens)}${cached}, model ${entry.model}`,
      ];
    }
    case 'items-appended':
      return entry.items.map(
        (item, index) =>
          `${index === 0 ? `${head} ${time}` : ' '.repeat(head.length + 13)} item  ${item.kind.padEnd(10)} ${item.id} ${formatCount(item.tokens)} tokens  ${describeItem(item)}`,
      );
    case 'transcript-replaced':
      return renderMarker(head, time, entry.marker, style);
    case 'tool-calls-started':
      return [
        `${head} ${time} tools started    ${entry.calls
          .map((call) => `${call.toolName ?? '?'}(${call.callId}) ${shortHash(call.argumentsHash)}`)
          .join(', ')}`,
      ];
    case 'approval-requested':
      return entry.calls.map(
        (call, index) =>
          `${index === 0 ? `${head} ${time} ${style.yellow('approval asked')}  ` : ' '.repeat(head.length + 30)} ${call.toolName}(${call.callId}) ${shortHash(call.argumentsHash)} ${preview(call.arguments)}`,
      );
    case 'approval-decided': {
      const verdict = entry.approved ? style.green('approved') : style.red('denied');
      const reason = entry.reason === undefined || entry.reason === '' ? '' : `: ${entry.reason}`;
      return [
        `${head} ${time} approval decided ${entry.toolName ?? '?'}(${entry.callId}) ${verdict} ${shortHash(entry.argumentsHash)}${reason}`,
      ];
    }
  }
}

/** The run the log leaves open, and what a person has to decide before it can go on. */
function renderUnfinishedRun(run: UnfinishedRunAudit, style: Style): string[] {
  if (run.pendingApprovals.length === 0) {
    return [
      style.bold(`Unfinished run: ${run.runId}`),
      'Its process stopped before it finished; the next loopkeeper run on this session (or openAgentLoop) resumes it.',
    ];
  }
  const count = run.pendingApprovals.length;
  return [
    style.bold(
      `Pending approvals: run ${run.runId} waits for ${count} decision${count === 1 ? '' : 's'}`,
    ),
    renderTable({
      columns: [{ header: 'call id' }, { header: 'tool' }, { header: 'arguments' }],
      rows: run.pendingApprovals.map((call) => [call.callId, call.toolName, call.arguments]),
    }),
  ];
}

/** `sha256:` and the first 12 hex digits: enough to tell two argument sets apart by eye. */
function shortHash(hash: string): string {
  const [scheme, digits] = hash.split(':');
  return digits === undefined || digits.length <= 12 ? hash : `${scheme}:${digits.slice(0, 12)}…`;
}

function renderMarker(head: string, time: string, marker: MarkerAudit, style: Style): string[] {
  const indent = ' '.repeat(head.length + 14);
  const strategies = marker.strategies.length === 0 ? 'no strategy' : marker.strategies.join(', ');
  const lines = [
    `${head} ${time} ${style.yellow('compaction')}       tier ${marker.tier}, reason ${marker.reason}, ${strategies}: ${formatCount(marker.tokensBefore)} -> ${formatCount(marker.tokensAfter)} tokens, ${marker.itemsBefore} -> ${marker.itemsAfter} items (covers events through #${marker.throughSeq})`,
  ];
  if (marker.dropped.length > 0) {
    lines.push(`${indent}replaced ${marker.dropped.length} items: ${idList(marker.dropped)}`);
  }
  for (const { original, copy } of marker.pruned) {
    lines.push(
      `${indent}pruned ${original.id} (${formatCount(original.tokens)} tokens) -> ${copy.id} (${formatCount(copy.tokens)} tokens)`,
    );
  }
  for (const item of marker.added) {
    lines.push(
      `${indent}added ${item.kind} ${item.id} (${formatCount(item.tokens)} tokens)  ${describeItem(item)}`,
    );
  }
  lines.push(
    `${indent}kept ${marker.kept.length} items${marker.kept.length === 0 ? '' : `: ${marker.kept.join(', ')}`}`,
  );
  return lines;
}

function idList(items: readonly AuditItem[]): string {
  return items.map((item) => item.id).join(', ');
}

function describeItem(item: AuditItem): string {
  const parts: string[] = [];
  if (item.kind === 'toolResult')
    parts.push(`[${item.name ?? ''} ${item.callId ?? ''}${item.isError ? ' error' : ''}]`);
  if (item.kind === 'context' && item.name !== undefined) parts.push(`[${item.name}]`);
  if (item.preview !== '') parts.push(JSON.stringify(item.preview));
  if (item.toolCalls !== undefined) parts.push(`-> ${item.toolCalls.join(', ')}`);
  return parts.join(' ');
}
