import * as v from 'valibot';
import { nonEmpty } from './item.js';
import { callable } from './tool-definition.js';

const withMethod = (method: string, what: string) =>
  v.custom<object>(
    (value) => typeof (value as Record<string, unknown> | null)?.[method] === 'function',
    `must be ${what} (an object with ${method})`,
  );
const hook = v.optional(callable);

/**
 * What `createCompactor` refuses at once rather than mid-run: a missing trigger, a backend or
 * strategy of the wrong shape, hooks that are not functions, unknown mutation points. The
 * tiers' own options are checked by the strategies that take them.
 */
export const CompactorOptionsSchema = v.object(
  {
    trigger: withMethod('evaluate', 'a CompactionTrigger such as tokenBudgetTrigger()'),
    backend: v.optional(
      v.pipe(
        withMethod('summarize', 'a CompactionBackend'),
        v.looseObject({ maxInputTokens: v.pipe(v.number(), v.gtValue(0, 'must be positive')) }),
      ),
    ),
    strategy: v.optional(withMethod('apply', 'a CompactionStrategy')),
    beforeCompaction: hook,
    afterCompaction: hook,
    toolOutputLimit: v.optional(
      v.union(
        [
          v.literal(false),
          v.looseObject({
            maxTokens: v.pipe(
              v.number(),
              v.finite('must be a finite number'),
              v.gtValue(0, 'must be positive'),
            ),
          }),
        ],
        'must be false or {maxTokens}',
      ),
    ),
    name: v.optional(nonEmpty),
    points: v.optional(
      v.array(v.picklist(['AfterToolResult', 'AfterTurnEnded', 'BeforeInference'])),
    ),
  },
  'must be an object with at least a trigger',
);
