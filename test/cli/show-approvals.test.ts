import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSessionStore } from 'loopkeeper';
import { hashToolArguments } from 'loopkeeper/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalSession, recordApprovalSession } from './support/approval-session.js';
import { ensureCliBuilt, runLoopkeeper } from './support/cli-process.js';

interface ApprovalCallJson {
  readonly callId: string;
  readonly toolName?: string;
  readonly arguments?: string;
  readonly argumentsHash: string;
}

interface ApprovalAuditJson {
  readonly entries: readonly {
    readonly seq: number;
    readonly type: string;
    readonly runId?: string;
    readonly calls?: readonly ApprovalCallJson[];
    readonly callId?: string;
    readonly toolName?: string;
    readonly approved?: boolean;
    readonly reason?: string;
    readonly argumentsHash?: string;
  }[];
  readonly unfinishedRun: {
    readonly runId: string;
    readonly pendingApprovals: readonly ApprovalCallJson[];
  } | null;
}

const hashOf = (value: object) => hashToolArguments(JSON.stringify(value));

describe('loopkeeper show on a session with tool approvals', () => {
  let directory: string;
  let session: ApprovalSession;
  let pausedRunId: string;

  beforeAll(async () => {
    await ensureCliBuilt();
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-cli-show-approvals-'));
    session = await recordApprovalSession({ directory });
    const started = session.events.filter((event) => event.type === 'run-started');
    pausedRunId = started.at(-1)?.runId ?? '';
  }, 120_000);

  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('lists requests, decisions and started calls with their hashes, then what the last run waits for', async () => {
    const result = await runLoopkeeper(['show', session.sessionId, '--dir', directory]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    const short = (value: object) => `${hashOf(value).slice(0, 'sha256:'.length + 12)}…`;
    const asked = lines.filter((line) => /approval asked|^ {20,}deploy\(/.test(line));
    expect(asked).toEqual([
      expect.stringMatching(
        new RegExp(`approval asked {3}deploy\\(call_web\\) ${short({ service: 'web' })} `),
      ),
      expect.stringMatching(/^ +deploy\(call_db\) sha256:[0-9a-f]{12}… \{"service":"db"\}$/),
      expect.stringMatching(/approval asked {3}deploy\(call_api\) .+ \{"service":"api"\}$/),
    ]);
    // The continuation line lines up with the first call.
    expect(asked[1]?.indexOf('deploy(')).toBe(asked[0]?.indexOf('deploy('));
    expect(lines.filter((line) => line.includes('approval decided'))).toEqual([
      expect.stringMatching(
        new RegExp(`approval decided deploy\\(call_web\\) approved ${short({ service: 'web' })}$`),
      ),
      expect.stringMatching(/approval decided deploy\(call_db\) denied sha256:\S+: not today$/),
    ]);
    // Only the approved deploy and the status call ran; the denied one never started.
    expect(lines.filter((line) => line.includes('tools started'))).toEqual([
      expect.stringMatching(
        new RegExp(
          `tools started {4}deploy\\(call_web\\) ${short({ service: 'web' })}, status\\(call_status\\) ${short({})}$`,
        ),
      ),
    ]);
    const pending = lines.indexOf(`Pending approvals: run ${pausedRunId} waits for 1 decision`);
    expect(pending).toBeGreaterThan(lines.findLastIndex((line) => line.includes('approval asked')));
    expect(
      lines.slice(pending + 1, pending + 4).map((line) => line.trim().split(/\s{2,}/)),
    ).toEqual([
      ['call id', 'tool', 'arguments'],
      [expect.stringMatching(/^-+$/), expect.stringMatching(/^-+$/), expect.stringMatching(/^-+$/)],
      ['call_api', 'deploy', '{"service":"api"}'],
    ]);
    expect(result.stdout).toMatch(/\nEffective history: /);
  });

  it('gives the same events and the pending approvals in --json', async () => {
    const result = await runLoopkeeper(['show', session.sessionId, '--dir', directory, '--json']);
    expect(result.code).toBe(0);
    const audit = JSON.parse(result.stdout) as ApprovalAuditJson;
    expect(audit.entries.map((entry) => entry.seq)).toEqual(
      session.events.map((event) => event.seq),
    );
    const requested = audit.entries.filter((entry) => entry.type === 'approval-requested');
    expect(requested.map((entry) => entry.calls)).toEqual([
      [
        {
          callId: 'call_web',
          toolName: 'deploy',
          arguments: '{"service":"web"}',
          argumentsHash: hashOf({ service: 'web' }),
        },
        {
          callId: 'call_db',
          toolName: 'deploy',
          arguments: '{"service":"db"}',
          argumentsHash: hashOf({ service: 'db' }),
        },
      ],
      [
        {
          callId: 'call_api',
          toolName: 'deploy',
          arguments: '{"service":"api"}',
          argumentsHash: hashOf({ service: 'api' }),
        },
      ],
    ]);
    const decided = audit.entries.filter((entry) => entry.type === 'approval-decided');
    expect(decided.map(({ seq: _seq, at: _at, ...rest }: Record<string, unknown>) => rest)).toEqual(
      [
        expect.objectContaining({
          callId: 'call_web',
          toolName: 'deploy',
          approved: true,
          argumentsHash: hashOf({ service: 'web' }),
        }),
        expect.objectContaining({
          callId: 'call_db',
          toolName: 'deploy',
          approved: false,
          reason: 'not today',
          argumentsHash: hashOf({ service: 'db' }),
        }),
      ],
    );
    expect(decided[0]).not.toHaveProperty('reason');
    const started = audit.entries.filter((entry) => entry.type === 'tool-calls-started');
    expect(started.map((entry) => entry.calls)).toEqual([
      [
        { callId: 'call_web', toolName: 'deploy', argumentsHash: hashOf({ service: 'web' }) },
        { callId: 'call_status', toolName: 'status', argumentsHash: hashOf({}) },
      ],
    ]);
    expect(audit.unfinishedRun).toEqual({
      runId: pausedRunId,
      pendingApprovals: [
        {
          callId: 'call_api',
          toolName: 'deploy',
          arguments: '{"service":"api"}',
          argumentsHash: hashOf({ service: 'api' }),
        },
      ],
    });
  });

  it('says when the last run stopped without waiting, and shows no pending section once runs finish', async () => {
    const store = new FileSessionStore({ directory });
    await store.append(
      'stopped',
      [
        { type: 'run-started', runId: 'run-stopped' },
        {
          type: 'items-appended',
          runId: 'run-stopped',
          items: [{ kind: 'user', id: 'user_1', content: 'Deploy everything.' }],
        },
      ],
      { expectedSeq: 0 },
    );
    await store.append(
      'finished',
      [
        { type: 'run-started', runId: 'run-done' },
        { type: 'run-finished', runId: 'run-done', outcome: 'completed', steps: 0 },
      ],
      { expectedSeq: 0 },
    );
    await store.close();

    const stopped = await runLoopkeeper(['show', 'stopped', '--dir', directory]);
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain('\nUnfinished run: run-stopped\n');
    expect(stopped.stdout).not.toContain('Pending approvals');

    const finished = await runLoopkeeper(['show', 'finished', '--dir', directory]);
    expect(finished.code).toBe(0);
    expect(finished.stdout).toContain(' run finished ');
    expect(finished.stdout).not.toMatch(/Unfinished run|Pending approvals/);
  });
});
