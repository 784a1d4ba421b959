import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, runLoopkeeper } from './support/cli-process.js';

interface DemoJson {
  readonly sessionId: string;
  readonly logPath: string;
  readonly compactions: number;
  readonly effectiveItems: number;
  readonly effectiveTokens: number;
  readonly items: number;
  readonly steps: number;
}

interface AuditJson {
  readonly sessionId: string;
  readonly path: string;
  readonly entries: readonly {
    readonly seq: number;
    readonly type: string;
    readonly items?: readonly { readonly id: string; readonly tokens: number }[];
    readonly marker?: {
      readonly dropped: readonly { readonly id: string }[];
      readonly pruned: readonly { readonly original: { readonly id: string } }[];
      readonly kept: readonly string[];
      readonly added: readonly { readonly id: string; readonly kind: string }[];
      readonly itemsBefore: number;
      readonly itemsAfter: number;
    };
  }[];
  readonly effective: {
    readonly tokens: number;
    readonly items: readonly { readonly id: string; readonly tokens: number }[];
  };
}

describe('loopkeeper show', () => {
  let directory: string;
  let demo: DemoJson;

  beforeAll(async () => {
    await ensureCliBuilt();
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-cli-show-'));
    const result = await runLoopkeeper(['demo', '--dir', directory, '--json']);
    expect(result.code).toBe(0);
    demo = JSON.parse(result.stdout) as DemoJson;
  }, 120_000);

  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('prints every event, each compaction marker with what it replaced and kept, and the effective history', async () => {
    const result = await runLoopkeeper(['show', demo.logPath]);
    expect(result.code).toBe(0);
    const { stdout } = result;
    expect(stdout).toContain(`Session ${demo.sessionId}`);
    expect(stdout.match(/ run started /g)?.length).toBe(25);
    expect(stdout.match(/ run finished /g)?.length).toBe(25);
    // Some recorded turns take one model request: "after 1 step", never "after 1 steps".
    expect(stdout).toMatch(/ completed after 1 step$/m);
    expect(stdout).not.toMatch(/after 1 steps/);
    expect(stdout.match(/ compaction {2,}tier /g)?.length).toBe(demo.compactions);
    expect(stdout).toMatch(/replaced \d+ items: /);
    expect(stdout).toMatch(/kept \d+ items/);
    expect(stdout).toContain('[loopkeeper:compaction_summary]');
    expect(stdout).toContain(
      `Effective history: ${demo.effectiveItems} items, ${demo.effectiveTokens.toLocaleString('en-US')} tokens`,
    );
  });

  it('finds a session by id in --dir and gives the same audit as JSON', async () => {
    const result = await runLoopkeeper(['show', demo.sessionId, '--dir', directory, '--json']);
    expect(result.code).toBe(0);
    const audit = JSON.parse(result.stdout) as AuditJson;
    expect(audit.sessionId).toBe(demo.sessionId);
    expect(basename(audit.path)).toBe(basename(demo.logPath));
    expect(audit.entries.map((entry) => entry.seq)).toEqual(
      audit.entries.map((_, index) => index + 1),
    );
    expect(audit.entries.filter((entry) => entry.type === 'usage-reported')).toHaveLength(
      demo.steps,
    );
    const appended = audit.entries.flatMap((entry) => entry.items ?? []);
    expect(appended).toHaveLength(demo.items);

    const markers = audit.entries.flatMap((entry) =>
      entry.marker === undefined ? [] : [entry.marker],
    );
    expect(markers).toHaveLength(demo.compactions);
    for (const marker of markers) {
      // Every item before the marker was dropped, pruned or kept; the summary and copies are new.
      expect(marker.dropped.length + marker.pruned.length + marker.kept.length).toBe(
        marker.itemsBefore,
      );
      expect(marker.kept.length + marker.pruned.length + marker.added.length).toBe(
        marker.itemsAfter,
      );
    }
    expect(markers.some((marker) => marker.added.some((item) => item.kind === 'context'))).toBe(
      true,
    );

    expect(audit.effective.items).toHaveLength(demo.effectiveItems);
    expect(audit.effective.tokens).toBe(demo.effectiveTokens);
    expect(audit.effective.items.every((item) => item.tokens > 0)).toBe(true);
  });

  it('fails with one clear line when the session does not exist', async () => {
    const result = await runLoopkeeper(['show', 'no-such-session', '--dir', directory]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^loopkeeper show: error: No session "no-such-session" in .+ \(sessions there: .+\)$/,
      ),
    ]);
  });
});
