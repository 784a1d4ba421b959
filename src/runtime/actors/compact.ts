import type { CompactionStepInput, CompactOutput } from '../../../machines/agent-loop.types.js';
import { CompactionError } from '../../errors/compaction-error.js';
import { MutatorError } from '../../errors/mutator-error.js';
import { validateTranscript } from '../../transcript/validate-transcript.js';
import { compactingLoop, loopActor, recordReplacement } from './loop-actor-context.js';
import { withTypedFailures } from './typed-failure.js';

/** The tiered compaction; a result that breaks the protocol is reported, never logged. */
export const compactActor = loopActor<CompactOutput, CompactionStepInput>(
  async ({ session, compactor, overhead, floor }, { input, signal, self }) => {
    if (compactor === undefined) throw new MutatorError('No compactor is configured');
    const tokens = await session.tokens();
    const previous = session.items;
    const started = performance.now();
    const outcome = await withTypedFailures(
      () =>
        compactor.compact({
          transcript: previous,
          tokens,
          reason: input.reason,
          point: input.point,
          signal,
          originalOf: (item) => session.originalOf(item),
          ...(session.reported === undefined ? {} : { reported: session.reported }),
          overheadTokens: overhead.measure(session, tokens),
          loop: compactingLoop(input, self),
        }),
      (description, cause) =>
        new CompactionError(`The compaction failed: ${description}`, { cause }),
    );
    const durationMs = performance.now() - started;
    const base = {
      tier: outcome.tier,
      strategies: outcome.strategies,
      tokensBefore: outcome.tokensBefore,
      tokensAfter: outcome.tokensAfter,
      durationMs,
      metadata: outcome.metadata,
    };
    if (validateTranscript(outcome.transcript).length > 0) {
      return { status: 'invalid', changed: false, ...base };
    }
    if (signal.aborted) throw signal.reason;
    const changed = outcome.transcript !== previous;
    if (changed) {
      await recordReplacement(session, input.runId, previous, outcome.transcript, {
        reason: input.reason,
        tier: outcome.tier,
        strategies: outcome.strategies,
        tokensBefore: outcome.tokensBefore,
        tokensAfter: outcome.tokensAfter,
      });
    }
    // A reactive compaction must make the request smaller, whatever our own trigger thinks.
    const reduced = outcome.tokensAfter < outcome.tokensBefore;
    const effective = outcome.effective && (input.reason === 'threshold' || reduced);
    if (effective) floor.clear();
    return { status: effective ? 'effective' : 'ineffective', changed, ...base };
  },
);
