/**
 * Where the loop runs mutators. `BeforeInference` is the point at the start of a run, before
 * its first inference; host mutators opt into it through `points`. Reactive compactions (after
 * a provider refusal) report the point the run was at when the refused request was built.
 */
export type MutationPoint = 'AfterToolResult' | 'AfterTurnEnded' | 'BeforeInference';
