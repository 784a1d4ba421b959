import type { MutatorDescriptor } from 'loopkeeper/machines';
import type { LoopConfiguration } from './loop-graph.js';

export const caps = [0, 1, 3, 5] as const;

export const mutatorSets = {
  'no mutators': [],
  'one host mutator': [{ name: 'redactor', points: ['AfterToolResult', 'AfterTurnEnded'] }],
  'two mutators': [
    { name: 'injector', points: ['BeforeInference', 'AfterToolResult'] },
    { name: 'redactor', points: ['AfterToolResult', 'AfterTurnEnded'] },
  ],
} as const satisfies Record<string, readonly MutatorDescriptor[]>;

export type MutatorSet = keyof typeof mutatorSets;

export function loopConfiguration({
  cap,
  mutators = 'one host mutator',
  maxStepsPerRun = 3,
  compactor = 'compactor',
  queueWhileBusy = false,
  approvals = false,
  resume = false,
}: {
  cap: number;
  mutators?: MutatorSet;
  maxStepsPerRun?: number;
  compactor?: string | null;
  queueWhileBusy?: boolean;
  /** Tools may need approval: every tool step goes through `gatingTools`. */
  approvals?: boolean;
  /** The loop starts by resuming an unfinished run that had made one inference. */
  resume?: boolean;
}): LoopConfiguration {
  const parts = [
    `cap ${cap}`,
    mutators,
    `${maxStepsPerRun} steps`,
    compactor === null ? 'no compactor' : null,
    queueWhileBusy ? 'a message queued while busy' : null,
    approvals ? 'tool approvals' : null,
    resume ? 'resuming a run at step 1' : null,
  ];
  return {
    label: parts.filter((part) => part !== null).join(', '),
    input: {
      sessionId: 'model-based',
      maxConsecutiveCompactions: cap,
      maxStepsPerRun,
      mutators: mutatorSets[mutators],
      compactor,
      ...(approvals ? { approvals } : {}),
      ...(resume ? { resume: { runId: 'model-based:run-resumed', steps: 1 } } : {}),
    },
    queueWhileBusy,
  };
}

const mutatorSetNames = Object.keys(mutatorSets) as MutatorSet[];

/** Every cap with every mutator set; the queue and a loop without compactor on top. */
export const graphConfigurations: readonly LoopConfiguration[] = [
  ...caps.flatMap((cap) => mutatorSetNames.map((mutators) => loopConfiguration({ cap, mutators }))),
  loopConfiguration({ cap: 1, queueWhileBusy: true }),
  loopConfiguration({ cap: 3, mutators: 'two mutators', queueWhileBusy: true }),
  loopConfiguration({ cap: 3, compactor: null }),
  // The cap the reliability attack used (the emergency prune ran 4 times in one run): enough
  // steps to reach every bound, ⌊8/2⌋ + 1 = 5 emergency prunes between successful inferences.
  loopConfiguration({ cap: 8, mutators: 'no mutators', maxStepsPerRun: 4 }),
  ...approvalConfigurations(),
];

/** Runs that wait for approvals, and a loop that starts by resuming a run from its log. */
function approvalConfigurations(): LoopConfiguration[] {
  return [
    loopConfiguration({ cap: 0, mutators: 'no mutators', approvals: true }),
    loopConfiguration({ cap: 1, approvals: true }),
    loopConfiguration({ cap: 1, approvals: true, resume: true }),
  ];
}

/** A real actor step costs far more than a pure transition: one mutator set per cap, plus the rest. */
export const replayConfigurations: readonly LoopConfiguration[] = [
  ...caps.map((cap) => loopConfiguration({ cap })),
  loopConfiguration({ cap: 1, mutators: 'no mutators' }),
  loopConfiguration({ cap: 1, mutators: 'two mutators' }),
  loopConfiguration({ cap: 1, queueWhileBusy: true }),
  loopConfiguration({ cap: 3, compactor: null }),
  // Resumes, then waits for approvals in that run and the ones after it.
  loopConfiguration({ cap: 0, mutators: 'no mutators', approvals: true, resume: true }),
];

/**
 * `getSimplePaths` lists paths once per target state, so its cost grows with states times paths;
 * these are the configurations where every complete run can be listed in about a second each.
 */
export const simplePathConfigurations: readonly LoopConfiguration[] = [
  loopConfiguration({ cap: 0, maxStepsPerRun: 2 }),
  loopConfiguration({ cap: 1, mutators: 'no mutators', maxStepsPerRun: 2 }),
];
