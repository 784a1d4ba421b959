import type { LoopkeeperError } from 'loopkeeper';
import type { TokenCounter } from 'loopkeeper/tokens';
import { expect } from 'vitest';
import type { LoopProbe } from './loop-probe.js';

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
  expect(probe.logValid).toBe(true);
  expect(probe.next.outcome).toBe('completed');
  return `run fails with ${name} (${code}), loop back in idle, nothing lost; the session goes on`;
}

function expectFailedSafely(probe: LoopProbe): void {
  expect(probe.finished.outcome).toBe('failed');
  expect(probe.idle).toBe(true);
  expect(probe.kept).toBe(true);
}

/** Asserts a run that completed with the log valid and the session going on. */
export function expectRunCompleted(probe: LoopProbe): void {
  expect(probe.finished.outcome).toBe('completed');
  expect(probe.idle).toBe(true);
  expect(probe.kept).toBe(true);
  expect(probe.logValid).toBe(true);
  expect(probe.next.outcome).toBe('completed');
}
