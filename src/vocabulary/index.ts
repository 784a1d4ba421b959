/**
 * The bottom vocabulary every layer shares: the enum-like unions, the serialized error, and the
 * pure description of a thrown value. It imports nothing else from the repository, so the loop
 * machine (`machines/`) and every area of `src/` may load it without a cycle.
 */

export type { CompactionReason } from './compaction-reason.js';
export type { CompactionTier } from './compaction-tier.js';
export { describeThrown, describeThrownText, type ThrownDescription } from './describe-thrown.js';
export type { MutationPoint } from './mutation-point.js';
export type { RunOutcome, TurnOutcome } from './run-outcome.js';
export { loopkeeperCodeOf, type SerializedError, serializeError } from './serialized-error.js';
