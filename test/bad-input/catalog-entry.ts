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

/**
 * The wording of a refusal as the catalogue quotes it: for problems, each one's index, item id
 * and what is wrong, as the error carries them; otherwise the error's message.
 */
export function quoted(error: unknown): string {
  const { problems, message } = error as {
    readonly problems?: readonly { index: number; id?: string; message: string }[];
    readonly message: string;
  };
  const text =
    problems === undefined
      ? message
      : problems
          .map(
            ({ index, id, message: what }) =>
              `item ${index}${id === undefined ? '' : ` (${id})`}: ${what}`,
          )
          .join('; ');
  return ` ("${text}")`;
}

/**
 * `expectTypedError` for an input refused by a thrown error, e.g. bad options; with `quote`, the
 * result quotes what the error says is wrong.
 */
export async function expectRefused(
  act: () => unknown,
  errorClass: ErrorClass,
  code: string,
  { quote = false }: { readonly quote?: boolean } = {},
): Promise<string> {
  const error = await thrownBy(act);
  return `throws ${expectTypedError(error, errorClass, code)}${quote ? quoted(error) : ''}`;
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
  const said = probe.finished.error?.message;
  return `run fails with ${name} (${code})${said === undefined ? '' : ` ("${said}")`}, loop back in idle, nothing lost; the session goes on`;
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
