import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { effectiveHistory, FileSessionStore } from 'loopkeeper';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { user } from '../support/items.js';
import { runChildUntilKilled } from '../support/kill-child.js';
import { collect, itemsAppended } from '../support/session-events.js';

/**
 * Starts the appender child and kills it with SIGKILL soon after it has reported `reports` appends.
 * Resolves with every seq the child reported as durably appended.
 */
async function runAndKill({
  directory,
  sessionId,
  reports,
}: {
  readonly directory: string;
  readonly sessionId: string;
  readonly reports: number;
}): Promise<number[]> {
  const reported: number[] = [];
  await runChildUntilKilled({
    script: './child-appender.ts',
    args: [directory, sessionId],
    onLine: (line, kill) => {
      reported.push(Number(line));
      // A varied delay lands the kill in different places: inside a write, inside fsync,
      // or between a durable append and its report.
      if (reported.length >= reports) kill(Math.random() * 20);
    },
  });
  return reported;
}

describe('FileSessionStore after a writer is killed mid-append', () => {
  let directory: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'loopkeeper-crash-'));
  });

  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('loses no event the child reported as appended, and the log stays valid and writable', async () => {
    const reported = await runAndKill({ directory, sessionId: 'crash', reports: 60 });
    expect(reported.length).toBeGreaterThanOrEqual(60);
    // Each report is the last seq of a batch, so they only grow.
    expect(reported).toEqual([...reported].sort((left, right) => left - right));

    const store = new FileSessionStore({ directory });
    try {
      const events = await collect(store.read('crash'));
      const seqs = events.map((event) => event.seq);
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 1));
      expect(seqs.length).toBeGreaterThanOrEqual(Math.max(...reported));
      // Every item is whole: the child names them r<round>-<index> with content of known size.
      for (const item of effectiveHistory(events)) {
        const round = Number(/^r(\d+)-\d+$/.exec(item.id)?.[1]);
        expect(item.kind === 'user' && item.content).toBe('x'.repeat((round * 7919) % 150_000));
      }

      // The dead child's lock is taken over and the seq continues.
      const { lastSeq } = await store.openSession('crash');
      expect(lastSeq).toBe(seqs.length);
      const [next] = await store.append('crash', [itemsAppended([user('after-crash')])], {
        expectedSeq: lastSeq,
      });
      expect(next?.seq).toBe(lastSeq + 1);
    } finally {
      await store.close();
    }
  });
});
