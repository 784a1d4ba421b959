import { createAgentLoop, defineTool, type LoopMutator, runTurn } from 'loopkeeper';
import type { TurnResult } from 'loopkeeper/runtime';
import { ScriptedModel } from 'loopkeeper/testing';

/**
 * Hostile-throw child: runs one loop whose tools (and, in a second turn, whose model and host
 * mutator) throw values that break naive error handling, then prints one JSON line with what the
 * loop logged and reported. Exit code 0 means the host survived.
 *
 * Usage: node --import tsx child-hostile-throws.ts
 */

/** Every value a tool may throw that once crashed (or could crash) the host. */
function hostileValues(): Record<string, () => unknown> {
  const throwing = () => {
    throw new Error('trap');
  };
  return {
    messageGetterThrows: () => {
      const error = new Error('hidden');
      Object.defineProperty(error, 'message', { get: throwing });
      Object.defineProperty(error, 'name', { get: throwing });
      return error;
    },
    proxyThrowsOnEveryTrap: () =>
      new Proxy(
        {},
        {
          get: throwing,
          has: throwing,
          getPrototypeOf: throwing,
          ownKeys: throwing,
          getOwnPropertyDescriptor: throwing,
          apply: throwing,
          construct: throwing,
          defineProperty: throwing,
          set: throwing,
          deleteProperty: throwing,
          isExtensible: throwing,
          preventExtensions: throwing,
          setPrototypeOf: throwing,
        },
      ),
    nullPrototype: () => Object.create(null),
    symbol: () => Symbol('hostile'),
    toStringThrows: () => ({ toString: throwing, toJSON: throwing }),
  };
}

const values = hostileValues();
const tools = Object.entries(values).map(([name, make]) =>
  defineTool({
    name,
    description: `Throws a hostile value (${name}).`,
    parameters: { type: 'object', properties: {} },
    execute: () => {
      throw make();
    },
  }),
);
const proxy = values['proxyThrowsOnEveryTrap'] as () => unknown;
const mutatorThrows: LoopMutator = {
  name: 'hostileMutator',
  points: ['AfterTurnEnded'],
  mutate: () => {
    throw proxy();
  },
};
let requests = 0;
const model = new ScriptedModel({
  script: () => {
    requests += 1;
    if (requests === 1)
      return { toolCalls: tools.map((tool) => ({ name: tool.name, arguments: {} })) };
    if (requests === 2) return { text: 'All five tools failed.' };
    return { error: proxy() };
  },
});
const loop = createAgentLoop({ model, tools, mutators: [] });
loop.start();
const runs: TurnResult[] = [await runTurn(loop, 'Call every tool.')];
runs.push(await runTurn(loop, 'Now the model itself throws.'));
const withMutator = createAgentLoop({
  model: new ScriptedModel({ turns: [{ text: 'done' }] }),
  mutators: [mutatorThrows],
});
withMutator.start();
runs.push(await runTurn(withMutator, 'A mutator throws after this answer.'));
const results = loop.session.items.filter((item) => item.kind === 'toolResult');
process.stdout.write(
  `${JSON.stringify({
    runs: runs.map((run) => ({ outcome: run.outcome, error: run.error })),
    results: results.map((result) => ({
      toolName: result.toolName,
      isError: result.isError,
      content: result.content,
    })),
  })}\n`,
);
