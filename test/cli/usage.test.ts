import { beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, runLoopkeeper } from './support/cli-process.js';

// Each case is its own child process, so they can run side by side.
describe.concurrent('loopkeeper command line', () => {
  beforeAll(async () => {
    await ensureCliBuilt();
  }, 120_000);

  it.each([
    [['demo', '--nope'], /^loopkeeper demo: Unknown option '--nope'/, 'Usage: loopkeeper demo '],
    [
      ['demo', '--window', 'big'],
      /^loopkeeper demo: --window must be a whole number/,
      'Usage: loopkeeper demo ',
    ],
    [
      ['demo', '--max-steps', '0'],
      /^loopkeeper demo: --max-steps must be a whole number >= 1 \(got "0"\)$/,
      'Usage: loopkeeper demo ',
    ],
    [
      ['demo', '--inspect', '--inspect-port', '70000'],
      /^loopkeeper demo: --inspect-port must be a whole number from 1 to 65535 \(got "70000"\)$/,
      'Usage: loopkeeper demo ',
    ],
    [
      ['run', 'task', '--inspect', '--inspect-port', '65536'],
      /^loopkeeper run: --inspect-port must be a whole number from 1 to 65535 \(got "65536"\)$/,
      'Usage: loopkeeper run ',
    ],
    [
      ['demo', '--window', '-5'],
      /^loopkeeper demo: --window must be a whole number >= 1024 \(got "-5"\)$/,
      'Usage: loopkeeper demo ',
    ],
    [
      ['compact', 'x.json', '--max-tokens', '-100'],
      /^loopkeeper compact: --max-tokens must be a whole number >= 1 \(got "-100"\)$/,
      'Usage: loopkeeper compact ',
    ],
    [
      ['run', 'task', '--max-steps', '-1'],
      /^loopkeeper run: --max-steps must be a whole number >= 1 \(got "-1"\)$/,
      'Usage: loopkeeper run ',
    ],
    [
      ['inspect', 'some-session', '--port', '70000'],
      /^loopkeeper inspect: --port must be a whole number from 1 to 65535 \(got "70000"\)$/,
      'Usage: loopkeeper inspect ',
    ],
    [['demo', 'extra'], /^loopkeeper demo: unexpected argument "extra"/, 'Usage: loopkeeper demo '],
    [['show'], /^loopkeeper show: missing <session>/, 'Usage: loopkeeper show <session>'],
    [
      ['show', 'bad id!'],
      /^loopkeeper show: "bad id!" is not a valid session id/,
      'Usage: loopkeeper show <session>',
    ],
    [['compact'], /^loopkeeper compact: missing <transcript.json>/, 'Usage: loopkeeper compact '],
    [
      ['compact', 'x.json', '--strategy', 'magic'],
      /^loopkeeper compact: unknown strategy "magic"/,
      'Usage: loopkeeper compact ',
    ],
    [
      ['compact', 'x.json', '--max-tokens', '100', '--target-tokens', '200'],
      /^loopkeeper compact: --target-tokens \(200\) must not exceed --max-tokens \(100\)/,
      'Usage: loopkeeper compact ',
    ],
    [['run'], /^loopkeeper run: missing "<task>"/, 'Usage: loopkeeper run '],
    [['bogus'], /^loopkeeper: unknown command "bogus"/, 'Usage: loopkeeper <command>'],
    [[], /^loopkeeper: missing command/, 'Usage: loopkeeper <command>'],
  ])('exits 2 with a usage line for %j', async (args, message, usageLine) => {
    const result = await runLoopkeeper(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toMatch(message);
    expect(lines[1]).toContain(usageLine);
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it.each(['demo', 'run', 'show', 'inspect', 'compact'])(
    'prints help for %s and exits 0',
    async (command) => {
      const result = await runLoopkeeper([command, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Usage: loopkeeper ${command}`);
      expect(result.stdout).toContain('Exit codes:');
      const viaHelp = await runLoopkeeper(['help', command]);
      expect(viaHelp.stdout).toBe(result.stdout);
    },
  );

  it('lists the commands with --help and prints the version', async () => {
    const help = await runLoopkeeper(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['demo', 'run', 'show', 'inspect', 'compact'])
      expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    const version = await runLoopkeeper(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const short = await runLoopkeeper(['-v']);
    expect(short.code).toBe(0);
    expect(short.stdout).toBe(version.stdout);
  });

  it('reports a runtime failure as one line with exit code 1, and the stack only with --verbose', async () => {
    const plain = await runLoopkeeper(['compact', 'does-not-exist.json']);
    expect(plain.code).toBe(1);
    expect(plain.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^loopkeeper compact: error: Transcript file not found: .*does-not-exist\.json$/,
      ),
    ]);
    const verbose = await runLoopkeeper(['compact', 'does-not-exist.json', '--verbose']);
    expect(verbose.code).toBe(1);
    expect(verbose.stderr).toMatch(/^\s+at /m);
    expect(verbose.stderr).toContain('Caused by: Error: ENOENT');
  });
});
