import { resolve } from 'node:path';
import { defineCommand } from '../define-command.js';
import { encodingOption } from '../encoding-option.js';
import { COMMON_OPTIONS, requirePositionals } from '../parse-command-line.js';
import { DEFAULT_SESSION_DIRECTORY, sessionArgument } from '../session-location.js';

const name = 'show';
const usage = 'loopkeeper show <session> [--dir DIR] [--json]';

const options = {
  ...COMMON_OPTIONS,
  dir: { type: 'string' },
  json: { type: 'boolean' },
  encoding: { type: 'string' },
} as const;

const help = `Show the audit view of a session log: every run, item, usage report, compaction marker
and tool approval in order, which items each marker replaced and what it kept, the calls
a paused run waits for, and the effective history (what the model sees next) with token
counts.

Usage: ${usage}

<session> is a session id (looked up in --dir) or the path of a session's .jsonl log, as
printed by "loopkeeper demo" and "loopkeeper run".

Options:
  --dir DIR          directory of session logs (default ${DEFAULT_SESSION_DIRECTORY})
  --json             print the audit as JSON
  --encoding NAME    token encoding for counts: o200k_base (default) or cl100k_base
  --verbose          show stack traces of errors
  -h, --help         show this help

Nothing is changed: the log is only read.
Exit codes: 0 shown, 1 the log is missing or unreadable, 2 bad arguments.`;

export const showCommand = defineCommand({
  name,
  summary: 'audit a session log: runs, items, usage, compaction markers, approvals',
  usage,
  help,
  options,
  async execute({ values, positionals }, context) {
    const [session] = requirePositionals({ command: name, positionals, names: ['session'] }) as [
      string,
    ];
    const encoding = encodingOption({ command: name, value: values.encoding });
    const { directory, sessionId } = sessionArgument({
      command: name,
      session,
      directory: values.dir,
      cwd: context.cwd,
    });
    // Loaded after parsing, so --help and usage errors answer without loading the tokenizer.
    const { executeShow } = await import('../show/execute-show.js');
    return executeShow(
      {
        location: { directory, sessionId },
        argumentPath: resolve(context.cwd, session),
        encoding,
        json: values.json === true,
      },
      context,
    );
  },
});
