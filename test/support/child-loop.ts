import {
  createTokenCounter,
  defineTool,
  FileSessionStore,
  openAgentLoop,
  runTurn,
} from 'loopkeeper';
import { ScriptedModel } from 'loopkeeper/testing';

/**
 * Crash-test child: runs an agent loop on a FileSessionStore, one turn after another, until it
 * is killed. Every turn calls a slow tool and then answers, so most of the child's life is spent
 * in the middle of a run. It prints one JSON line per event the parent needs:
 *
 * - `{"type":"tool-started","run":n}` when a tool call of run n starts (a good moment to kill);
 * - `{"type":"run-finished","run":n,"outcome":...,"lastSeq":s}` once run n is durably finished.
 *
 * Usage: node --import tsx child-loop.ts <directory> <sessionId>
 */

const [directory, sessionId] = process.argv.slice(2);
if (directory === undefined || sessionId === undefined) {
  process.stderr.write('usage: child-loop <directory> <sessionId>\n');
  process.exit(2);
}

function report(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

let run = 0;
const inspect = defineTool({
  name: 'inspect',
  description: 'Inspects a file slowly.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  execute: async ({ path }: { path: string }) => {
    report({ type: 'tool-started', run });
    // Long enough that a kill sent on `tool-started` lands while the call is open.
    await new Promise((resolve) => setTimeout(resolve, 200));
    return `contents of ${path}: ${'line of text\n'.repeat(20)}`;
  },
});

const tokens = await createTokenCounter({ encoding: 'o200k_base' });
// Odd requests call the tool, even ones conclude: each turn is a tool call and an answer.
let requests = 0;
const model = new ScriptedModel({
  tokens,
  script: () => {
    requests += 1;
    return requests % 2 === 1
      ? { toolCalls: [{ name: 'inspect', arguments: { path: `file-${requests}.txt` } }] }
      : { text: `Conclusion ${requests}: the file looks fine.` };
  },
});
const store = new FileSessionStore({ directory });
const loop = await openAgentLoop({ model, tools: [inspect], store, sessionId, tokens });
loop.start();
for (;;) {
  run += 1;
  const finished = await runTurn(loop, `Please inspect file number ${run}.`);
  report({
    type: 'run-finished',
    run,
    outcome: finished.outcome,
    lastSeq: loop.session.lastSeq,
  });
}
