import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type CliEnvironment, type Command, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './command.js';
import { COMMANDS } from './commands/index.js';
import { createStyle } from './output/style.js';
import { OVERVIEW } from './overview.js';
import { describeError, describeErrorVerbose } from './report-error.js';
import { UsageError } from './usage-error.js';

/**
 * Runs one command line and resolves with its exit code; never throws. Errors are printed as
 * one line (a usage error with the command's usage line), with the stack only under --verbose.
 */
export async function runCli({
  argv,
  environment,
}: {
  argv: readonly string[];
  environment: CliEnvironment;
}): Promise<number> {
  const { stdout, stderr, env } = environment;
  const context = {
    ...environment,
    style: {
      stdout: createStyle({ stream: stdout, env }),
      stderr: createStyle({ stream: stderr, env }),
    },
  };
  const red = context.style.stderr.red;
  // A lenient first pass only finds the command name and the global flags; the command
  // parses its own arguments strictly.
  const global = parseArgs({
    args: [...argv],
    options: {
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
      verbose: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const { verbose, help, version } = global.values;
  const commandToken = global.tokens.find((token) => token.kind === 'positional');
  let command: Command | undefined;
  try {
    if (commandToken === undefined) {
      if (version === true) {
        stdout.write(`${await readVersion()}\n`);
        return EXIT_OK;
      }
      if (help === true) {
        stdout.write(`${OVERVIEW}\n`);
        return EXIT_OK;
      }
      throw new UsageError('missing command');
    }
    const name = commandToken.value;
    const rest = argv.slice(commandToken.index + 1);
    if (name === 'help') {
      const topic = COMMANDS.find((candidate) => candidate.name === rest[0]);
      stdout.write(`${topic?.help ?? OVERVIEW}\n`);
      return EXIT_OK;
    }
    command = COMMANDS.find((candidate) => candidate.name === name);
    if (command === undefined) throw new UsageError(`unknown command "${name}"`);
    return await command.run(rest, context);
  } catch (error) {
    if (UsageError.isInstance(error)) {
      const owner = COMMANDS.find((candidate) => candidate.name === error.command) ?? command;
      const prefix = owner === undefined ? 'loopkeeper' : `loopkeeper ${owner.name}`;
      stderr.write(`${red(`${prefix}: ${error.message}`)}\n`);
      stderr.write(
        owner === undefined
          ? `Usage: loopkeeper <command> [options] (commands: ${COMMANDS.map((candidate) => candidate.name).join(', ')})\nRun "loopkeeper --help" for details.\n`
          : `Usage: ${owner.usage}\nRun "loopkeeper ${owner.name} --help" for details.\n`,
      );
      return EXIT_USAGE;
    }
    const prefix = command === undefined ? 'loopkeeper' : `loopkeeper ${command.name}`;
    stderr.write(`${red(`${prefix}: error: ${describeError(error)}`)}\n`);
    if (verbose === true) stderr.write(`${describeErrorVerbose(error)}\n`);
    return EXIT_FAILURE;
  }
}

async function readVersion(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { findPackageRoot } = await import('./package-root.js');
  const manifest = JSON.parse(await readFile(join(findPackageRoot(), 'package.json'), 'utf8')) as {
    version?: string;
  };
  return manifest.version ?? 'unknown';
}

/**
 * Runs the CLI in this process and exits with its code. The exit is explicit because some
 * libraries keep timers alive after they are stopped (the inspector's reconnect timer, HTTP
 * keep-alive sockets), and a finished command must not hang.
 */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<never> {
  const code = await runCli({
    argv,
    environment: {
      stdout: process.stdout,
      stderr: process.stderr,
      stdin: process.stdin,
      env: process.env,
      cwd: process.cwd(),
    },
  });
  await Promise.all([flush(process.stdout), flush(process.stderr)]);
  process.exit(code);
}

function flush(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) await main();
