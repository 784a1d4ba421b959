import {
  contextWindowTrigger,
  createAgentLoop,
  createCompactor,
  extractiveSummarizer,
} from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';

const compactor = createCompactor({
  trigger: contextWindowTrigger({ window: 128_000 }),
  backend: extractiveSummarizer(),
  beforeCompaction: ({ reason, tokens }) =>
    reason === 'threshold' && tokens < 20_000
      ? { skip: true }
      : { instructions: 'Keep every reservation id.' },
  afterCompaction: ({ dropped, kept, tier, tokensBefore, tokensAfter }) => {
    console.log({ tier, dropped: dropped.length, kept: kept.length, tokensBefore, tokensAfter });
  },
});

const loop = createAgentLoop({ model: new ScriptedModel({ turns: [] }), compactor });
loop.start();
// Compacts now (once the run in progress, if any, has ended), through the same hooks.
loop.send({ type: 'compact', instructions: 'Keep the passenger counts.' });
