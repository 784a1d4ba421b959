/**
 * Which tier wrote a compaction marker. `provider`: the model provider compacted the span on its
 * side (OpenAI's `context_management` compaction); the marker records what it replaced.
 */
export type CompactionTier = 'structural' | 'summary' | 'emergency' | 'mutator' | 'provider';
