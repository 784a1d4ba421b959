import { AbortedError } from '../errors/aborted-error.js';
import {
  requestTokensOf,
  resultTokensOf,
  resultWithKnownTokens,
  withKnownTokens,
} from './helpers/known-tokens.js';
import type {
  CompactionContext,
  CompactionRequest,
  CompactionResult,
  CompactionStrategy,
} from './types.js';

/** What the pipeline reports about one of its strategies. */
export interface PipelineStep {
  readonly name: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** Why the step did nothing: the strategy's own reason, or `target_reached` when it never ran. */
  readonly skipped?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** What a pipeline reports: every step, those never run included, and the ones that changed the transcript. */
export interface PipelineMetadata {
  readonly steps: readonly PipelineStep[];
  /** The steps that changed the transcript, in order (a nested pipeline's own steps, not its name). */
  readonly applied: readonly string[];
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly tokensSaved: number;
  readonly reachedTarget: boolean;
  /** `no_step_applied` when no step changed the transcript. */
  readonly skipped?: string;
}

/** A pipeline's result: its metadata is typed, so callers read the steps without a cast. */
export interface PipelineResult extends CompactionResult {
  readonly metadata: PipelineMetadata & Readonly<Record<string, unknown>>;
}

/** A strategy made by `pipeline`; usable wherever a `CompactionStrategy` is. */
export interface PipelineStrategy extends CompactionStrategy {
  apply(request: CompactionRequest, context: CompactionContext): Promise<PipelineResult>;
}

/**
 * Runs strategies in order, each on the output of the one before, and stops as soon as the
 * transcript is at or under `budget.targetTokens` (checked before every step, so cheap tiers
 * placed first spare the expensive ones). The pipeline is itself a strategy, so pipelines nest.
 * Its metadata (`PipelineMetadata`, typed) lists every step, those never run included, and
 * `applied` names the steps that changed the transcript.
 *
 * @example
 * ```ts
 * import {
 *   createCompactor,
 *   dropReasoning,
 *   keepRecent,
 *   pipeline,
 *   pruneToolResults,
 *   tokenBudgetTrigger,
 * } from 'loopkeeper';
 *
 * // Cheap steps first: the pipeline stops once the transcript is under the target.
 * const strategy = pipeline(dropReasoning(), pruneToolResults(), keepRecent({ tokens: 8_000 }));
 * const compactor = createCompactor({
 *   trigger: tokenBudgetTrigger({ maxTokens: 32_000 }),
 *   strategy,
 * });
 * ```
 */
export function pipeline(...strategies: readonly CompactionStrategy[]): PipelineStrategy {
  return {
    name: 'pipeline',
    async apply(request, context) {
      const { tokens, signal } = context;
      const tokensBefore = requestTokensOf(request, tokens);
      let transcript = request.transcript;
      let current = tokensBefore;
      const steps: PipelineStep[] = [];
      const applied: string[] = [];
      for (const strategy of strategies) {
        if (current <= request.budget.targetTokens) {
          steps.push({
            name: strategy.name,
            tokensBefore: current,
            tokensAfter: current,
            skipped: 'target_reached',
          });
          continue;
        }
        if (signal.aborted) {
          throw new AbortedError(`Compaction aborted before ${strategy.name}`, {
            cause: signal.reason,
          });
        }
        // Each step is told the total it starts from, and built-in steps report the exact total
        // they end at, so the whole transcript is counted once per pipeline, not per step.
        const result: CompactionResult = await strategy.apply(
          withKnownTokens({ ...request, transcript }, tokens, current),
          context,
        );
        const after = resultTokensOf(result, tokens);
        const { skipped } = result.metadata;
        steps.push({
          name: strategy.name,
          tokensBefore: current,
          tokensAfter: after,
          ...(typeof skipped === 'string' ? { skipped } : {}),
          metadata: result.metadata,
        });
        if (result.transcript !== transcript) {
          // A nested pipeline names the steps it applied, not itself.
          const nested = result.metadata['applied'];
          if (Array.isArray(nested) && strategy.name === 'pipeline') {
            applied.push(...nested.filter((name): name is string => typeof name === 'string'));
          } else applied.push(strategy.name);
        }
        transcript = result.transcript;
        current = after;
      }
      return resultWithKnownTokens(
        {
          transcript,
          metadata: {
            steps,
            applied,
            tokensBefore,
            tokensAfter: current,
            tokensSaved: tokensBefore - current,
            reachedTarget: current <= request.budget.targetTokens,
            ...(applied.length === 0 ? { skipped: 'no_step_applied' } : {}),
          },
        },
        tokens,
        current,
      );
    },
  };
}
