import { defineCommand } from '../define-command.js';
import { DEFAULT_INSPECTOR_HOST } from '../inspector/relay-origin.js';
import { DEFAULT_INSPECTOR_PORT } from '../inspector-port.js';
import {
  COMMON_OPTIONS,
  integerOption,
  MAX_PORT,
  requirePositionals,
} from '../parse-command-line.js';
import { DEFAULT_SESSION_DIRECTORY, sessionArgument } from '../session-location.js';

const name = 'inspect';
const usage = 'loopkeeper inspect <session> [--dir DIR] [--port PORT] [--host HOST] [--step-ms MS]';

const options = {
  ...COMMON_OPTIONS,
  dir: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'step-ms': { type: 'string' },
} as const;

const help = `Replay a recorded session log into the Stately inspector, state by state, with the
telemetry events the loop emitted: every run, inference, tool batch, compaction and emergency
prune, as the live loop would have shown them. No model is called and no API key is needed.

Usage: ${usage}

<session> is a session id (looked up in --dir) or the path of a session's .jsonl log, as
printed by "loopkeeper demo" and "loopkeeper run".

Options:
  --dir DIR        directory of session logs (default ${DEFAULT_SESSION_DIRECTORY})
  --port PORT      port of the inspector relay (default ${DEFAULT_INSPECTOR_PORT})
  --host HOST      address the relay listens on (default 127.0.0.1, this machine only);
                   another address lets other machines read and send session events
  --step-ms MS     pause between states, to watch the replay unfold (default 0)
  --verbose        show stack traces of errors
  -h, --help       show this help

On a terminal it waits for Enter before the replay (open the page first) and after it.
Only the log is read. Exit codes: 0 replayed, 1 the log is missing or unreadable or the port
is taken, 2 bad arguments.`;

export const inspectCommand = defineCommand({
  name,
  summary: 'replay a session log into the Stately inspector, offline',
  usage,
  help,
  options,
  async execute({ values, positionals }, context) {
    const [session] = requirePositionals({ command: name, positionals, names: ['session'] }) as [
      string,
    ];
    const port = integerOption({
      command: name,
      name: 'port',
      value: values.port,
      fallback: DEFAULT_INSPECTOR_PORT,
      maximum: MAX_PORT,
    });
    const stepDelayMs = integerOption({
      command: name,
      name: 'step-ms',
      value: values['step-ms'],
      fallback: 0,
      minimum: 0,
    });
    const location = sessionArgument({
      command: name,
      session,
      directory: values.dir,
      cwd: context.cwd,
    });
    // Loaded after parsing, so --help and usage errors answer without loading the relay.
    const { executeInspect } = await import('../inspect/execute-inspect.js');
    return executeInspect(
      { location, port, host: values.host ?? DEFAULT_INSPECTOR_HOST, stepDelayMs },
      context,
    );
  },
});
