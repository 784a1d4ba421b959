import { ProtocolError } from '../errors/protocol-error.js';
import type { Item } from './types.js';
import { validateTranscript } from './validate-transcript.js';

/**
 * Returns `items` typed as a transcript, or throws a `ProtocolError` listing every problem.
 *
 * @example
 * ```ts
 * import { assertValidTranscript } from 'loopkeeper/transcript';
 *
 * // Returns the items typed as Item[], or throws ProtocolError listing every problem.
 * const items = assertValidTranscript(JSON.parse('[{"kind":"user","id":"u1","content":"Hi"}]'));
 * console.log(items[0]?.kind);
 * ```
 */
export function assertValidTranscript(items: readonly unknown[]): readonly Item[] {
  const problems = validateTranscript(items);
  if (problems.length > 0) throw new ProtocolError({ problems: problems });
  return items as readonly Item[];
}
