import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { serializeError } from 'loopkeeper/runtime';
import { describe, expect, it } from 'vitest';
import { toolFailedMessage } from '../../src/tools/tool-messages.js';
import { describeThrown } from '../../src/vocabulary/index.js';

const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));
const child = fileURLToPath(new URL('../support/child-hostile-throws.ts', import.meta.url));

interface ChildOutput {
  readonly runs: readonly {
    outcome: string;
    error?: { name: string; code: string; message: string };
  }[];
  readonly results: readonly { toolName: string; isError: boolean; content: string }[];
}

function runChild(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', child],
      { cwd: repositoryRoot, timeout: 20_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const throwing = () => {
  throw new Error('trap');
};

describe('describeThrown', () => {
  it('describes every hostile value without throwing', () => {
    const messageGetter = new Error('x');
    Object.defineProperty(messageGetter, 'message', { get: throwing });
    const proxy = new Proxy({}, { get: throwing, has: throwing, getPrototypeOf: throwing });
    const values: unknown[] = [
      messageGetter,
      proxy,
      Object.create(null),
      Symbol('s'),
      { toString: throwing, toJSON: throwing },
      undefined,
      42n,
    ];
    for (const value of values) {
      const description = describeThrown(value);
      expect(typeof description.message).toBe('string');
      expect(serializeError(value).code).toBe('unexpected');
      expect(toolFailedMessage({ toolName: 't', error: value })).toMatch(
        /^Error: Tool "t" failed: /,
      );
    }
    expect(describeThrown(Symbol('s')).message).toBe('Symbol(s)');
    expect(describeThrown(new TypeError('bad')).name).toBe('TypeError');
  });
});

describe('createAgentLoop with tools that throw hostile values', () => {
  it('keeps the host process alive and turns every throw into an isError result', async () => {
    const { code, stdout, stderr } = await runChild();
    expect(stderr).not.toMatch(/Uncaught|unhandled/i);
    expect(code).toBe(0);
    const output = JSON.parse(stdout) as ChildOutput;
    expect(output.results.map((result) => result.toolName)).toEqual([
      'messageGetterThrows',
      'proxyThrowsOnEveryTrap',
      'nullPrototype',
      'symbol',
      'toStringThrows',
    ]);
    for (const result of output.results) {
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(new RegExp(`^Error: Tool "${result.toolName}" failed: `));
    }
    const [tools, model, mutator] = output.runs;
    expect(tools?.outcome).toBe('completed');
    // A model or mutator throwing a Proxy fails its run with a typed error, never a crash.
    expect(model).toMatchObject({
      outcome: 'failed',
      error: { name: 'ModelError', code: 'model_unknown' },
    });
    expect(mutator).toMatchObject({
      outcome: 'failed',
      error: { name: 'MutatorError', code: 'mutator' },
    });
  }, 30_000);
});
