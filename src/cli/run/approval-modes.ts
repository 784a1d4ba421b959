/** How `loopkeeper run` decides tool calls that need approval (`--approve`). */
export type ApprovalMode = 'all' | 'ask' | 'none';

export const APPROVAL_MODES: readonly ApprovalMode[] = ['all', 'ask', 'none'];
