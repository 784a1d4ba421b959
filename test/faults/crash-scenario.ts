import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  defineTool,
  effectiveHistory,
  FileSessionStore,
  openAgentLoop,
  resumeRun,
  runTurn,
  type SessionEvent,
  validateTranscript,
} from 'loopkeeper';
import type { TurnResult } from 'loopkeeper/runtime';
import { ScriptedModel } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import { runChildUntilKilled } from '../support/kill-child.js';
import { readSession } from '../support/loop-harness.js';
import { keepsPrefix } from '../support/scenario-driver.js';
import type { FaultRow } from './fault-row.js';

interface ChildReport {
  readonly type: 'tool-started' | 'run-finished';
  readonly run: number;
  readonly outcome?: string;
  readonly lastSeq?: number;
}

/**
 * Runs the child loop and kills it with SIGKILL at the first tool call after `completedRuns`
 * runs have finished, so the kill lands in the middle of a run with a tool call open.
 */
async function runChildAndKill({
  directory,
  sessionId,
  completedRuns,
}: {
  readonly directory: string;
  readonly sessionId: string;
  readonly completedRuns: number;
}): Promise<ChildReport[]> {
  const reports: ChildReport[] = [];
  await runChildUntilKilled({
    script: './child-loop.ts',
    args: [directory, sessionId],
    onLine: (line, kill) => {
      const report = JSON.parse(line) as ChildReport;
      reports.push(report);
      const finished = reports.filter((entry) => entry.type === 'run-finished').length;
      if (report.type === 'tool-started' && finished >= completedRuns) kill();
    },
  });
  return reports;
}

export interface CrashResult {
  readonly row: FaultRow;
  readonly reports: readonly ChildReport[];
  /** The log as the killed child left it. */
  readonly beforeResume: readonly SessionEvent[];
  /** The log after resuming and one more turn. */
  readonly afterResume: readonly SessionEvent[];
  readonly runsAtResume: number;
  readonly resumed: TurnResult;
  /** The killed run, continued in place by the reopened loop. */
  readonly continued: TurnResult | null;
}

/**
 * SIGKILLs a child process running a loop on the file store mid-run, then reopens the session
 * with `openAgentLoop` on the same directory and session id, which resumes the killed run in
 * place, and runs one more turn.
 */
export async function runCrashScenario(tokens: TokenCounter): Promise<CrashResult> {
  const directory = await mkdtemp(join(tmpdir(), 'loopkeeper-sigkill-'));
  const sessionId = 'crashed-session';
  try {
    const reports = await runChildAndKill({ directory, sessionId, completedRuns: 3 });
    const store = new FileSessionStore({ directory });
    try {
      const beforeResume = await readSession(store, sessionId);
      const inspect = defineTool({
        name: 'inspect',
        description: 'Inspects a file slowly.',
        parameters: {
          type: 'object',
          properties: { path: { type: 'string' } },
          required: ['path'],
        },
        execute: ({ path }: { path: string }) => `contents of ${path}`,
      });
      // Answers from the transcript, so the resumed run and the next turn each get a fitting reply.
      const loop = await openAgentLoop({
        model: new ScriptedModel({
          tokens,
          script: (request) =>
            request.transcript.at(-1)?.kind === 'toolResult'
              ? { text: 'Resumed and done.' }
              : { toolCalls: [{ name: 'inspect', arguments: { path: 'after-crash.txt' } }] },
        }),
        tools: [inspect],
        store,
        sessionId,
        tokens,
      });
      const runsAtResume = loop.session.runs;
      loop.start();
      const continued = await resumeRun(loop);
      const resumed = await runTurn(loop, 'Carry on after the crash.');
      loop.stop();
      const afterResume = await readSession(store, sessionId);
      const history = effectiveHistory(afterResume);
      const lastReported = Math.max(
        ...reports.flatMap((report) => (report.lastSeq === undefined ? [] : [report.lastSeq])),
      );
      return {
        row: {
          fault: 'SIGKILL of a child process mid-run, then resume in place',
          // The killed run as the reopened loop finished it; `nextTurn` is the turn after it.
          outcome: continued?.outcome ?? 'failed',
          errorCode: continued?.error?.code ?? '-',
          handled: `the reopened loop resumed the killed run in place (its interrupted call answered); ${
            reports.filter((report) => report.type === 'run-finished').length
          } runs before the kill kept`,
          logValid:
            validateTranscript(history).length === 0 &&
            JSON.stringify(history) === JSON.stringify(loop.session.items),
          itemsKept: keepsPrefix(beforeResume, afterResume) && beforeResume.length >= lastReported,
          nextTurn: resumed.outcome,
        },
        continued,
        reports,
        beforeResume,
        afterResume,
        runsAtResume,
        resumed,
      };
    } finally {
      await store.close();
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
