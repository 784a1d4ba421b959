import type { LoopkeeperError, LoopMutator } from 'loopkeeper';
import type { Compactor } from 'loopkeeper/compaction';
import type { FakeReply } from 'loopkeeper/testing';
import type { TokenCounter } from 'loopkeeper/tokens';
import type { AnyToolDefinition } from 'loopkeeper/tools';
import { expect } from 'vitest';
import {
  runScenario,
  type ScenarioRun,
  type ScenarioStepRecord,
} from '../support/scenario-driver.js';

/** One malformed input of the catalogue and how loopkeeper must answer it. */
export interface CatalogEntry {
  readonly area: 'transcript' | 'options' | 'store' | 'model output' | 'user message';
  readonly input: string;
  /**
   * Feeds the input through the public API and asserts the answer; returns the result as it
   * goes into the catalogue table, built from what actually happened.
   */
  readonly check: (context: { readonly tokens: TokenCounter }) => Promise<string>;
}

/** Anything with a static `isInstance`, as every loopkeeper error class has. */
export interface ErrorClass {
  readonly name: string;
  isInstance(value: unknown): boolean;
}

/** What `act` threw (or rejected with); fails the test when it did not throw. */
export async function thrownBy(act: () => unknown): Promise<unknown> {
  try {
    await act();
  } catch (error) {
    return error;
  }
  throw new Error('expected the input to be refused, but it was accepted');
}

/** Asserts a typed error of `errorClass` with `code`, and returns the catalogue's wording. */
export function expectTypedError(error: unknown, errorClass: ErrorClass, code: string): string {
  expect(errorClass.isInstance(error), `expected a ${errorClass.name}, got ${String(error)}`).toBe(
    true,
  );
  expect((error as LoopkeeperError).code).toBe(code);
  return `${errorClass.name} (${code})`;
}

/** `expectTypedError` for an input refused by a thrown error, e.g. bad options. */
export async function expectRefused(
  act: () => unknown,
  errorClass: ErrorClass,
  code: string,
): Promise<string> {
  return `throws ${expectTypedError(await thrownBy(act), errorClass, code)}`;
}

/**
 * Asserts that the run the input went into failed with a typed error (`name` and `code`, as
 * recorded in `RunFinished`), the actor is back in `idle` and nothing logged before was lost,
 * and that the log stayed valid and the next turn completed.
 */
export function expectRunFailed(
  probe: LoopProbe,
  { name, code }: { name: string; code: string },
): string {
  expect(probe.finished.error).toMatchObject({ name, code });
  expectFailedSafely(probe);
  expectLogValid(probe);
  expect(probe.next.finished.outcome).toBe('completed');
  return `run fails with ${name} (${code}), loop back in idle, nothing lost; the session goes on`;
}

function expectFailedSafely(probe: LoopProbe): void {
  expect(probe.finished.outcome).toBe('failed');
  expect(probe.idle).toBe(true);
  expect(probe.allKept).toBe(true);
}

/** Asserts a run that completed with the log valid and the session going on. */
export function expectRunCompleted(probe: LoopProbe): void {
  expect(probe.finished.outcome).toBe('completed');
  expect(probe.idle).toBe(true);
  expect(probe.allKept).toBe(true);
  expectLogValid(probe);
  expect(probe.next.finished.outcome).toBe('completed');
}

/** The log's effective history validates right after the bad run and replays to the live session. */
function expectLogValid(probe: LoopProbe): void {
  expect(probe.historyProblems).toEqual([]);
  expect(probe.matchesLive).toBe(true);
}

/** The loop's side of a bad-input row: the run the input went into, and the turn after it. */
export interface LoopProbe extends ScenarioStepRecord {
  /** One more, well-formed turn sent afterwards. */
  readonly next: ScenarioStepRecord;
  /** Events logged before the bad input are an unchanged prefix of the log after it, and after the next turn. */
  readonly allKept: boolean;
  readonly run: ScenarioRun;
}

/**
 * Sends a warm-up turn (answered `Hi.`), then `content` (default a plain request) answered by
 * `replies`, then one well-formed turn, over the real SDK and the fake server; later requests
 * are answered `Done.`.
 */
export async function probeLoop({
  tokens,
  content = 'Do the thing.',
  replies = [],
  tools = [],
  compactor,
  mutators = [],
}: {
  readonly tokens: TokenCounter;
  readonly content?: unknown;
  readonly replies?: readonly FakeReply[];
  readonly tools?: readonly AnyToolDefinition[];
  readonly compactor?: Compactor;
  readonly mutators?: readonly LoopMutator[];
}): Promise<LoopProbe> {
  const run = await runScenario({
    tokens,
    tools,
    mutators,
    ...(compactor === undefined ? {} : { compactor }),
    steps: [
      { send: 'Hello.', replies: [{ text: 'Hi.' }], mustComplete: true },
      { send: content, replies },
      { send: 'Thanks, carry on.' },
    ],
  });
  const [, bad, next] = run.steps;
  if (bad === undefined || next === undefined) throw new Error('the probe sent no bad input');
  return { ...bad, next, allKept: run.kept, run };
}
