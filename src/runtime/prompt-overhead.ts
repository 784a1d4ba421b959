import type { ToolSpec } from '../model/types.js';
import type { TokenCounter } from '../tokens/types.js';
import type { LoopSession } from './loop-session.js';

/**
 * Tokens of a request outside its items (instructions, tool schemas, formatting). Measured from
 * the latest reported usage while it still describes the history; between a compaction and the
 * next report the last measurement is used, and before any report an estimate from the
 * instructions and tool schemas. Triggers add it on the estimate basis, so the budget checked
 * right after a compaction means the same line as one checked on reported usage.
 */
export class PromptOverhead {
  readonly #instructions: string;
  readonly #specs: readonly ToolSpec[];
  #measured: number | undefined;
  /** The report (prompt tokens, items covered, history epoch) `#measured` was taken from. */
  #measuredFrom: string | undefined;
  #estimated: number | undefined;

  constructor(instructions: string | undefined, specs: readonly ToolSpec[]) {
    this.#instructions = instructions ?? '';
    this.#specs = specs;
  }

  /**
   * Measures from the session's latest report when there is one: O(items it covered), once per
   * report, since a report describes a fixed prefix of the history until the next one.
   */
  measure(session: LoopSession, tokens: TokenCounter): number {
    const reported = session.reported;
    // The items a report covers change only when a compaction replaces the history.
    const key =
      reported === undefined
        ? undefined
        : `${reported.promptTokens}:${reported.itemCount}:${session.epoch}`;
    if (reported !== undefined && key !== this.#measuredFrom) {
      const covered = tokens.count(session.items.slice(0, reported.itemCount));
      this.#measured = Math.max(0, reported.promptTokens - covered);
      this.#measuredFrom = key;
    }
    return this.last(tokens);
  }

  /** The last measurement, else the estimate (computed once). */
  last(tokens: TokenCounter): number {
    if (this.#measured !== undefined) return this.#measured;
    this.#estimated ??=
      tokens.countText(this.#instructions) +
      (this.#specs.length === 0 ? 0 : tokens.countText(JSON.stringify(this.#specs)));
    return this.#estimated;
  }
}
