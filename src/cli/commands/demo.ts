import { resolve } from 'node:path';
import { defineCommand } from '../define-command.js';
import { DEFAULT_INSPECTOR_HOST } from '../inspector/relay-origin.js';
import { DEFAULT_INSPECTOR_PORT } from '../inspector-port.js';
import {
  COMMON_OPTIONS,
  integerOption,
  MAX_PORT,
  requirePositionals,
} from '../parse-command-line.js';
import { UsageError } from '../usage-error.js';

const name = 'demo';
const usage =
  'loopkeeper demo [--dir DIR] [--keep] [--window TOKENS] [--transcripts DIR] [--max-steps N] [--inspect] [--json]';

const options = {
  ...COMMON_OPTIONS,
  dir: { type: 'string' },
  keep: { type: 'boolean' },
  window: { type: 'string' },
  transcripts: { type: 'string' },
  'max-steps': { type: 'string' },
  inspect: { type: 'boolean' },
  'inspect-port': { type: 'string' },
  'inspect-host': { type: 'string' },
  json: { type: 'boolean' },
} as const;

const help = `Replay five real agent transcripts as one long session, offline, and watch loopkeeper
keep it inside a small context window.

Usage: ${usage}

The recorded assistant messages are the model's answers (a ScriptedModel), the recorded tool
outputs come back through replay tools, and every recorded user message is one run of the loop.
A compactor (structural tiers, then the offline extractive summarizer, then an emergency
prune) keeps the effective history under the window. No network and no API key are needed.

Options:
  --dir DIR            where to write the session log, kept after the demo (default: a new
                       temporary directory, removed at the end)
  --keep               keep the temporary directory and print how to audit its session log
  --window TOKENS      the simulated context window in tokens (default 8192)
  --transcripts DIR    replay the *.json transcripts of DIR instead of the bundled ones
  --max-steps N        model requests one replayed user turn may make (default 50)
  --inspect            start the Stately inspector's local relay and publish the loop to it
  --inspect-port PORT  port of the inspector relay (default ${DEFAULT_INSPECTOR_PORT})
  --inspect-host HOST  address the relay listens on (default 127.0.0.1)
  --json               print the summary as JSON on stdout (progress stays on stderr)
  --verbose            show stack traces of errors
  -h, --help           show this help

Exit codes: 0 done, 1 the replay failed, 2 bad arguments.`;

export const demoCommand = defineCommand({
  name,
  summary: 'replay real transcripts offline through a small context window',
  usage,
  help,
  options,
  async execute({ values, positionals }, context) {
    requirePositionals({ command: name, positionals, names: [] });
    const window = integerOption({
      command: name,
      name: 'window',
      value: values.window,
      fallback: 8192,
      minimum: 1024,
    });
    const maxSteps = integerOption({
      command: name,
      name: 'max-steps',
      value: values['max-steps'],
      fallback: 50,
    });
    const inspectPort = integerOption({
      command: name,
      name: 'inspect-port',
      value: values['inspect-port'],
      fallback: DEFAULT_INSPECTOR_PORT,
      maximum: MAX_PORT,
    });
    if (values['inspect-port'] !== undefined && !values.inspect) {
      throw new UsageError('--inspect-port needs --inspect', { command: name });
    }
    if (values['inspect-host'] !== undefined && !values.inspect) {
      throw new UsageError('--inspect-host needs --inspect', { command: name });
    }
    // Loaded after parsing, so --help and usage errors answer without loading the runtime.
    const { executeDemo } = await import('../demo/execute-demo.js');
    return executeDemo(
      {
        directory: values.dir === undefined ? undefined : resolve(context.cwd, values.dir),
        keep: values.keep === true,
        window,
        maxSteps,
        transcripts:
          values.transcripts === undefined ? undefined : resolve(context.cwd, values.transcripts),
        inspectPort: values.inspect ? inspectPort : undefined,
        inspectHost: values['inspect-host'] ?? DEFAULT_INSPECTOR_HOST,
        json: values.json === true,
      },
      context,
    );
  },
});
