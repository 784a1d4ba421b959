/**
 * A worker process for the Restate tests and the benchmark: serves the loopkeeper object with
 * the plan model and the effect tool. Env: PORT, EFFECTS_FILE (optional), LOOP_LIMITS (optional,
 * JSON `LoopObjectLimits`), LOOP_COMPACT_AT (optional: a compactor triggered at that many tokens). Prints
 * `listening <port>` once it accepts connections.
 */
import * as restate from '@restatedev/restate-sdk';
import { createCompactor, tokenBudgetTrigger } from 'loopkeeper';
import { createLoopObject } from 'loopkeeper/restate';
import { effectTool } from './effect-tool.js';
import { planModel } from './plan-model.js';
import { storeProbe } from './store-probe.js';

const effectsFile = process.env['EFFECTS_FILE'] || undefined;
const limits = process.env['LOOP_LIMITS'] ? JSON.parse(process.env['LOOP_LIMITS']) : undefined;
const compactAt = Number(process.env['LOOP_COMPACT_AT'] || 0);
const compactor =
  compactAt > 0
    ? createCompactor({ trigger: tokenBudgetTrigger({ maxTokens: compactAt }) })
    : undefined;
const object = createLoopObject({
  loop: () => ({
    model: planModel({ ...(effectsFile === undefined ? {} : { effectsFile }) }),
    tools: [
      // Keyed by its idempotency key, so running a call again is harmless.
      {
        ...effectTool({ ...(effectsFile === undefined ? {} : { effectsFile }) }),
        idempotent: true,
      },
      // The same effect behind a person's approval (plan tools with `approval: true`).
      {
        ...effectTool({ ...(effectsFile === undefined ? {} : { effectsFile }) }),
        name: 'approved_effect',
        needsApproval: true,
        idempotent: true,
      },
      // The same effect declared not idempotent (plan tools with `once: true`): a call a crash
      // cut off must not run again.
      {
        ...effectTool({ ...(effectsFile === undefined ? {} : { effectsFile }) }),
        name: 'once_effect',
      },
    ],
    instructions: 'You are a test agent.',
    ...(compactor === undefined ? {} : { compactor }),
  }),
  restate: {
    retryPolicy: { initialInterval: 100, maxInterval: 500 },
    ...(process.env['EAGER_STATE'] ? { enableLazyState: false } : {}),
  },
  ...(limits === undefined ? {} : { limits }),
});

const port = await restate.serve({
  services: [object, storeProbe],
  port: Number(process.env['PORT'] ?? 0),
  ...(process.env['WORKER_LOG'] ? {} : { logger: () => undefined }),
});
process.stdout.write(`listening ${port}\n`);
