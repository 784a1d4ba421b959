import { COMMANDS } from './commands/index.js';

/** The top-level `--help` text. */
export const OVERVIEW = `loopkeeper: an LLM agent loop that keeps long sessions inside the context window.

Usage: loopkeeper <command> [options]

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(9)} ${command.summary}`).join('\n')}

Run "loopkeeper <command> --help" for a command's options.
Options: -h, --help (this text), -v, --version, --verbose (stack traces on errors).
Exit codes: 0 ok, 1 runtime failure, 2 usage error. NO_COLOR turns colour off.`;
