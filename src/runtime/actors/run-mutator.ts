import type { RunMutatorInput, RunMutatorOutput } from '../../../machines/agent-loop.types.js';
import { MutatorError } from '../../errors/mutator-error.js';
import { commitTranscript, compactingLoop, loopActor } from './loop-actor-context.js';
import { withTypedFailures } from './typed-failure.js';

/** Runs one host mutator; a changed transcript is validated before it is logged. */
export const runMutatorActor = loopActor<RunMutatorOutput, RunMutatorInput>(
  async ({ session, mutators, overhead }, { input, signal, self }) => {
    const mutator = mutators.find((candidate) => candidate.name === input.mutator);
    if (mutator === undefined) throw new MutatorError(`No mutator named "${input.mutator}"`);
    const previous = session.items;
    const tokens = await session.tokens();
    const output = await withTypedFailures(
      async () =>
        mutator.mutate({
          transcript: previous,
          tokens,
          point: input.point,
          signal,
          ledger: session.ledger,
          ...(session.reported === undefined ? {} : { reported: session.reported }),
          overheadTokens: overhead.measure(session, tokens),
          // A compactor used as a plain mutator may summarize too; its backend sees this loop.
          loop: compactingLoop(input, self),
        }),
      (description, cause) =>
        new MutatorError(`The mutator "${mutator.name}" failed: ${description}`, { cause }),
    );
    if (!output.dirty) return { dirty: false, valid: true, metadata: output.metadata ?? {} };
    const committed = await commitTranscript(session, {
      runId: input.runId,
      previous,
      next: output.transcript,
      signal,
      marker: output.marker ?? {
        reason: 'manual',
        tier: 'mutator',
        strategies: [mutator.name],
        tokensBefore: session.estimateTokens(tokens),
        tokensAfter: tokens.count(output.transcript),
      },
    });
    if (committed.status === 'invalid') {
      return {
        dirty: true,
        valid: false,
        metadata: output.metadata,
        problems: committed.problems.map(
          (problem) => `${problem.index}: ${problem.kind}: ${problem.message}`,
        ),
      };
    }
    return { dirty: true, valid: true, metadata: output.metadata };
  },
);
