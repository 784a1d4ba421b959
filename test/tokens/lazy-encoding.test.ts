import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repository = fileURLToPath(new URL('../..', import.meta.url));

// A module-resolution hook that writes every gpt-tokenizer module Node resolves to a file.
const hooks = `
import { appendFileSync } from 'node:fs';
let log;
export async function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (result.url.includes('gpt-tokenizer')) appendFileSync(log, result.url + '\\n');
  return result;
}
`;

let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'loopkeeper-lazy-'));
  await writeFile(join(directory, 'hooks.mjs'), hooks);
  await writeFile(
    join(directory, 'register.mjs'),
    `import { register } from 'node:module';
register(new URL('./hooks.mjs', import.meta.url), { data: { log: process.env.RESOLVED_LOG } });`,
  );
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('createTokenCounter', () => {
  it('importing loopkeeper loads no encoding; the first counter loads only its own', async () => {
    const log = join(directory, 'resolved.log');
    await writeFile(log, '');
    const script = `
      import { readFileSync } from 'node:fs';
      const loopkeeper = await import(${JSON.stringify(pathToFileURL(join(repository, 'src/index.ts')).href)});
      console.log(JSON.stringify(readFileSync(process.env.RESOLVED_LOG, 'utf8')));
      await loopkeeper.createTokenCounter({ encoding: 'cl100k_base' });
      console.log(JSON.stringify(readFileSync(process.env.RESOLVED_LOG, 'utf8')));
    `;
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        '--import',
        pathToFileURL(join(directory, 'register.mjs')).href,
        '--input-type=module',
        '-e',
        script,
      ],
      { cwd: repository, env: { ...process.env, RESOLVED_LOG: log } },
    );
    const [afterImport, afterCounter] = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as string);
    // bpeRanks/<encoding>.js is the ~65 MB rank table; nothing may pull it in at import time.
    expect(afterImport).not.toMatch(/bpeRanks|\/encoding\//);
    expect(afterCounter).toMatch(/gpt-tokenizer\/esm\/bpeRanks\/cl100k_base\.js/);
    expect(afterCounter).not.toMatch(/bpeRanks\/o200k_base|encoding\/o200k_base/);
    expect(await readFile(log, 'utf8')).toBe(afterCounter);
  });

  it('a loop with no compactor and no mutators loads no encoding for a short exchange; one with a compactor does', async () => {
    const log = join(directory, 'resolved-loops.log');
    await writeFile(log, '');
    const source = (path: string) => JSON.stringify(pathToFileURL(join(repository, path)).href);
    const script = `
      import { readFileSync } from 'node:fs';
      const { createAgentLoop, createCompactor, runTurn, tokenBudgetTrigger } = await import(${source('src/index.ts')});
      const { ScriptedModel } = await import(${source('src/testing/index.ts')});
      const turn = async (options) => {
        const loop = createAgentLoop({ model: new ScriptedModel({ turns: [{ text: 'An answer.' }] }), ...options });
        loop.start();
        const result = await runTurn(loop, 'A short question.');
        loop.stop();
        return result.outcome;
      };
      console.log(JSON.stringify([await turn({}), readFileSync(process.env.RESOLVED_LOG, 'utf8')]));
      const compactor = createCompactor({ trigger: tokenBudgetTrigger({ maxTokens: 100_000 }) });
      console.log(JSON.stringify([await turn({ compactor }), readFileSync(process.env.RESOLVED_LOG, 'utf8')]));
    `;
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        '--import',
        pathToFileURL(join(directory, 'register.mjs')).href,
        '--input-type=module',
        '-e',
        script,
      ],
      { cwd: repository, env: { ...process.env, RESOLVED_LOG: log } },
    );
    const [plain, compacting] = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as [string, string]);
    expect(plain).toEqual(['completed', '']);
    expect(compacting?.[0]).toBe('completed');
    expect(compacting?.[1]).toMatch(/gpt-tokenizer\/esm\/bpeRanks\/o200k_base\.js/);
  });
});
