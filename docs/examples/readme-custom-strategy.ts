import {
  type CompactionStrategy,
  contextWindowTrigger,
  createCompactor,
  pipeline,
  pruneToolResults,
} from 'loopkeeper';

/** Drops host memory notes (context items named "note") except the newest three. */
const keepNewestNotes: CompactionStrategy = {
  name: 'keepNewestNotes',
  async apply({ transcript }) {
    const notes = transcript.filter((item) => item.kind === 'context' && item.name === 'note');
    const dropped = new Set(notes.slice(0, -3).map((item) => item.id));
    return {
      transcript: transcript.filter((item) => !dropped.has(item.id)),
      metadata: { notesDropped: dropped.size },
    };
  },
};

export const compactor = createCompactor({
  trigger: contextWindowTrigger({ window: 32_000 }),
  strategy: pipeline(keepNewestNotes, pruneToolResults()),
});
