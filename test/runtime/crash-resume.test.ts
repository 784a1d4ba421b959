import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  effectiveHistory,
  FileSessionStore,
  type SessionEvent,
  validateTranscript,
} from 'loopkeeper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild } from '../support/bundle-child.js';
import { collect } from '../support/session-events.js';

const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));

interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly lines: readonly Record<string, unknown>[];
  readonly stderr: string;
}

let module: string;
let root: string;
/** A session paused for approval by a clean first process, copied into approve-phase scenarios. */
let pausedDirectory: string;

beforeAll(async () => {
  // Inside the checkout, so the bundle's external packages resolve from its node_modules.
  const cache = join(repositoryRoot, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  root = await mkdtemp(join(cache, 'loopkeeper-crash-resume-'));
  module = await bundleChild({ script: './child-durable-run.ts', directory: root });
  pausedDirectory = join(root, 'paused');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function runChild(args: readonly string[]): Promise<ChildExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [module, ...args], {
      cwd: repositoryRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const lines = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      resolve({ code, signal, lines, stderr });
    });
  });
}

/** A crash point: which process of the scenario dies, and where. */
interface CrashPoint {
  /**
   * `start`: the process that starts the run and exits while it waits (it does not approve);
   * `approve`: the next one, which approves and finishes; `single`: one process that starts
   * the run and approves inline.
   */
  readonly phase: 'start' | 'approve' | 'single';
  readonly kill: string;
}

interface Effect {
  readonly tool: string;
  readonly callId: string;
  readonly approved: boolean;
}

async function readEffects(path: string): Promise<Effect[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Effect);
}

async function readLog(directory: string, sessionId: string): Promise<SessionEvent[]> {
  const store = new FileSessionStore({ directory });
  try {
    return await collect(store.read(sessionId));
  } finally {
    await store.close();
  }
}

/**
 * Runs the scenario with one crash: the first process starts the run and exits while it waits
 * for approval; a second one approves and finishes it. The process named by the crash point is
 * SIGKILLed instead, and new processes resume the run until it completes.
 */
async function crashAndFinish(point: CrashPoint, index: number) {
  const directory = join(root, `point-${index}`);
  await mkdir(directory, { recursive: true });
  const effects = join(directory, 'effects.jsonl');
  const sessionId = 'release';
  const args = (kill: string, approve: 'yes' | 'no') => [
    directory,
    sessionId,
    effects,
    kill,
    approve,
  ];
  const exits: ChildExit[] = [];
  const acked: number[] = [];
  let snapshotAtKill: SessionEvent[] = [];
  const kills = () => exits.filter((exit) => exit.signal === 'SIGKILL').length;
  const record = async (exit: ChildExit) => {
    for (const line of exit.lines) if (line['type'] === 'acked') acked.push(line['seq'] as number);
    if (exit.signal === 'SIGKILL') snapshotAtKill = await readLog(directory, sessionId);
  };

  if (point.phase === 'approve') {
    // Every approve-phase scenario starts from the same paused log, made once.
    await copyFile(
      join(pausedDirectory, `${sessionId}.jsonl`),
      join(directory, `${sessionId}.jsonl`),
    );
    await copyFile(join(pausedDirectory, 'effects.jsonl'), effects);
  } else {
    const start = await runChild(
      point.phase === 'single' ? args(point.kill, 'yes') : args(point.kill, 'no'),
    );
    exits.push(start);
    await record(start);
  }
  if (point.phase === 'approve') {
    const crashed = await runChild(args(point.kill, 'yes'));
    exits.push(crashed);
    await record(crashed);
  }
  // Resume until the run is done; each resuming process approves what waits.
  for (let attempt = 0; attempt < 4; attempt++) {
    const exit = await runChild(args('none', 'yes'));
    exits.push(exit);
    await record(exit);
    if (exit.lines.some((line) => line['type'] === 'done')) break;
  }
  return {
    events: await readLog(directory, sessionId),
    effects: await readEffects(effects),
    exits,
    kills: kills(),
    acked,
    snapshotAtKill,
  };
}

/** How many appends each phase makes when nothing crashes, to list every append as a point. */
async function appendsPerPhase(): Promise<{ start: number; approve: number }> {
  await mkdir(pausedDirectory, { recursive: true });
  const effects = join(pausedDirectory, 'effects.jsonl');
  const args = [pausedDirectory, 'release', effects, 'none'];
  const start = await runChild([...args, 'no']);
  // Kept as the starting point of every approve-phase scenario.
  const dryRun = join(root, 'dry-run');
  await mkdir(dryRun, { recursive: true });
  await copyFile(join(pausedDirectory, 'release.jsonl'), join(dryRun, 'release.jsonl'));
  await copyFile(effects, join(dryRun, 'effects.jsonl'));
  const approve = await runChild([dryRun, 'release', join(dryRun, 'effects.jsonl'), 'none', 'yes']);
  const count = (exit: ChildExit) => exit.lines.filter((line) => line['type'] === 'acked').length;
  expect(start.lines.at(-1)).toMatchObject({ type: 'paused' });
  expect(approve.lines.at(-1)).toMatchObject({ type: 'done', outcome: 'completed' });
  return { start: count(start), approve: count(approve) };
}

describe('a run on the file store, SIGKILLed at every log append and resumed in a new process', () => {
  it('finishes every crashed run completed and protocol-valid; non-idempotent tools ran at most once, approved ones exactly once after approval, idempotent ones at least once; nothing acknowledged is lost', async () => {
    const appends = await appendsPerPhase();
    const points: CrashPoint[] = [
      ...Array.from({ length: appends.start }, (_, n) => [
        { phase: 'start' as const, kill: `before:${n + 1}` },
        { phase: 'start' as const, kill: `after:${n + 1}` },
      ]).flat(),
      { phase: 'start', kill: 'tool:read_config' },
      { phase: 'start', kill: 'tool:send_email' },
      { phase: 'start', kill: 'waiting' },
      ...Array.from({ length: appends.approve }, (_, n) => [
        { phase: 'approve' as const, kill: `before:${n + 1}` },
        { phase: 'approve' as const, kill: `after:${n + 1}` },
      ]).flat(),
      { phase: 'approve', kill: 'tool:deploy' },
      // One process that approves inline: killed inside the tools it runs, and after each
      // append from its decision on.
      { phase: 'single', kill: 'tool:send_email' },
      { phase: 'single', kill: 'tool:deploy' },
      ...Array.from({ length: appends.approve }, (_, n) => ({
        phase: 'single' as const,
        kill: `after:${appends.start + n + 1}`,
      })),
    ];
    expect(points.length).toBeGreaterThanOrEqual(30);

    const outcomes: Awaited<ReturnType<typeof crashAndFinish>>[] = [];
    // Four scenarios at a time: each is a few short processes on its own session directory.
    for (let index = 0; index < points.length; index += 4) {
      outcomes.push(
        ...(await Promise.all(
          points
            .slice(index, index + 4)
            .map((point, offset) => crashAndFinish(point, index + offset)),
        )),
      );
    }

    const problems: string[] = [];
    for (const [index, outcome] of outcomes.entries()) {
      const point = points[index] as CrashPoint;
      const where = `${point.phase} ${point.kill}`;
      const { events, effects } = outcome;
      if (outcome.kills !== 1) problems.push(`${where}: ${outcome.kills} kills, expected 1`);
      const finished = events.filter((event) => event.type === 'run-finished');
      const runs = events.filter((event) => event.type === 'run-started');
      if (runs.length !== 1 || finished.length !== 1 || finished[0]?.outcome !== 'completed') {
        problems.push(`${where}: ${runs.length} runs, finished ${JSON.stringify(finished)}`);
      }
      const problemsInTranscript = validateTranscript(effectiveHistory(events));
      if (problemsInTranscript.length > 0)
        problems.push(`${where}: ${JSON.stringify(problemsInTranscript)}`);
      const ran = (tool: string) => effects.filter((effect) => effect.tool === tool);
      if (ran('send_email').length > 1)
        problems.push(`${where}: send_email ran ${ran('send_email').length} times`);
      if (ran('read_config').length < 1) problems.push(`${where}: read_config never ran`);
      const deploys = ran('deploy');
      if (new Set(deploys.map((effect) => effect.callId)).size !== 1 || deploys.length < 1) {
        problems.push(`${where}: deploy effects ${JSON.stringify(deploys)}`);
      }
      if (deploys.some((effect) => !effect.approved))
        problems.push(`${where}: deploy ran unapproved`);
      // Everything the killed process saw acknowledged is in the final log, unchanged.
      const lastAcked = Math.max(0, ...outcome.acked);
      const kept = outcome.snapshotAtKill.filter((event) => event.seq <= lastAcked);
      const final = events.slice(0, kept.length);
      if (
        JSON.stringify(kept) !== JSON.stringify(final) ||
        kept.length < Math.min(lastAcked, outcome.snapshotAtKill.length)
      ) {
        problems.push(`${where}: acknowledged events changed or lost`);
      }
      const stuck = outcome.exits.find((exit) => exit.code !== 0 && exit.signal !== 'SIGKILL');
      if (stuck !== undefined)
        problems.push(`${where}: a process failed: ${stuck.stderr.slice(0, 300)}`);
    }
    expect(problems).toEqual([]);
    // The scenarios really crashed in the middle: some resumed runs re-ran an idempotent call,
    // and some told the model a non-idempotent call may or may not have taken effect.
    const interruptedResults = outcomes.filter((outcome) =>
      outcome.events.some(
        (event) =>
          event.type === 'items-appended' &&
          event.items.some(
            (item) =>
              item.kind === 'toolResult' &&
              item.content.includes('may or may not have taken effect'),
          ),
      ),
    );
    expect(interruptedResults.length).toBeGreaterThan(0);
    expect(
      outcomes.some(
        (outcome) => outcome.effects.filter((effect) => effect.tool === 'read_config').length > 1,
      ),
    ).toBe(true);
  }, 120_000);
});
