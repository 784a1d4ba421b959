/** loopkeeper's own span attributes and names, beside the GenAI conventions' ones. */
export const LOOPKEEPER_RUN_ID = 'loopkeeper.run.id';
export const LOOPKEEPER_RUN_OUTCOME = 'loopkeeper.run.outcome';
export const LOOPKEEPER_RUN_STEPS = 'loopkeeper.run.steps';
export const LOOPKEEPER_STEP = 'loopkeeper.step';
export const LOOPKEEPER_REQUEST_ESTIMATED_TOKENS = 'loopkeeper.request.estimated_tokens';
export const LOOPKEEPER_REQUEST_ITEM_COUNT = 'loopkeeper.request.item_count';
export const LOOPKEEPER_RESPONSE_TOOL_CALLS = 'loopkeeper.response.tool_calls';
export const LOOPKEEPER_RESPONSE_TEXT_LENGTH = 'loopkeeper.response.text_length';
export const LOOPKEEPER_TOOL_ARGUMENTS_LENGTH = 'loopkeeper.tool.arguments_length';
export const LOOPKEEPER_TOOL_OUTPUT_LENGTH = 'loopkeeper.tool.output_length';
export const LOOPKEEPER_TOOL_IS_ERROR = 'loopkeeper.tool.is_error';
export const LOOPKEEPER_COMPACTION_REASON = 'loopkeeper.compaction.reason';
export const LOOPKEEPER_COMPACTION_TIER = 'loopkeeper.compaction.tier';
export const LOOPKEEPER_COMPACTION_REACTIVE = 'loopkeeper.compaction.reactive';
export const LOOPKEEPER_COMPACTION_ATTEMPT = 'loopkeeper.compaction.attempt';
export const LOOPKEEPER_COMPACTION_STRATEGIES = 'loopkeeper.compaction.strategies';
export const LOOPKEEPER_COMPACTION_TOKENS_BEFORE = 'loopkeeper.compaction.tokens_before';
export const LOOPKEEPER_COMPACTION_TOKENS_AFTER = 'loopkeeper.compaction.tokens_after';
export const LOOPKEEPER_COMPACTION_EFFECTIVE = 'loopkeeper.compaction.effective';
export const LOOPKEEPER_COMPACTION_FITS = 'loopkeeper.compaction.fits';
export const LOOPKEEPER_MUTATOR = 'loopkeeper.mutator';
export const LOOPKEEPER_MUTATION_POINT = 'loopkeeper.mutation.point';
export const LOOPKEEPER_MUTATION_DIRTY = 'loopkeeper.mutation.dirty';
export const LOOPKEEPER_CHILD_SOURCE = 'loopkeeper.child.source';

/** The span of one compaction (or emergency prune) of a run. */
export const COMPACTION_SPAN_NAME = 'loopkeeper.compaction';
/** The span of one host mutator's run. */
export const MUTATION_SPAN_NAME = 'loopkeeper.mutation';
/** Span event on a chat span when the first streamed text arrives (time to first token). */
export const FIRST_DELTA_EVENT_NAME = 'loopkeeper.inference.first_delta';
