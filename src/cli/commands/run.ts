import { resolve } from 'node:path';
import { isValidSessionId } from '../../log/session-id.js';
import { defineCommand } from '../define-command.js';
import { DEFAULT_INSPECTOR_HOST } from '../inspector/relay-origin.js';
import { DEFAULT_INSPECTOR_PORT } from '../inspector-port.js';
import { COMMON_OPTIONS, integerOption, MAX_PORT } from '../parse-command-line.js';
import { APPROVAL_MODES, type ApprovalMode } from '../run/approval-modes.js';
import { DEFAULT_SESSION_DIRECTORY } from '../session-location.js';
import { UsageError } from '../usage-error.js';

const name = 'run';
const usage =
  'loopkeeper run "<task>" [--model M] [--dir DIR] [--session ID] [--window N] [--cwd DIR] [--approve all|ask|none] [--inspect]';
const defaultModel = 'gpt-4o-mini';

const options = {
  ...COMMON_OPTIONS,
  model: { type: 'string' },
  dir: { type: 'string' },
  session: { type: 'string' },
  window: { type: 'string' },
  cwd: { type: 'string' },
  summarizer: { type: 'string' },
  'max-steps': { type: 'string' },
  inspect: { type: 'boolean' },
  'inspect-port': { type: 'string' },
  'inspect-host': { type: 'string' },
  approve: { type: 'string' },
} as const;

const help = `Run a task as a real agent session against an OpenAI-compatible endpoint, with
tools confined to a working directory, streaming the answer to stdout. Writes need
approval. A run of the session that did not finish (its process stopped, or it waits for
approval) is resumed and finished first.

Usage: ${usage}

Environment:
  OPENAI_API_KEY     required: the API key of the endpoint
  OPENAI_BASE_URL    optional: an OpenAI-compatible server, e.g. http://localhost:11434/v1

Tools the model gets (confined to --cwd; paths leaving it are refused, output is capped):
  list_files         list a directory, optionally recursively
  read_file          read a text file with line numbers
  search_text        find a literal string in text files
  write_file         create or replace a text file (needs approval, see --approve)

Options:
  --model M          the model name (default ${defaultModel})
  --dir DIR          directory of session logs (default ${DEFAULT_SESSION_DIRECTORY})
  --session ID       continue an existing session, or give a new one this id
  --window N         the model's context window in tokens (default 128000)
  --cwd DIR          the working directory the tools may read and write (default: the current one)
  --summarizer S     who writes compaction summaries: model (default) or extractive (offline)
  --max-steps N      model requests allowed for this task (default 50)
  --approve MODE     who decides calls that need approval: ask (a question per call on
                     the terminal: y, n, or n <reason>), all (approve every call) or none
                     (deny every call); default ask when stdin is a terminal, else none
  --inspect          start the Stately inspector's local relay and publish the loop to it
  --inspect-port N   port of the inspector relay (default ${DEFAULT_INSPECTOR_PORT})
  --inspect-host HOST
                     address the relay listens on (default 127.0.0.1, this machine only)
  --verbose          show stack traces of errors
  -h, --help         show this help

Tool calls, approvals, compactions and the session id go to stderr; the answer goes to stdout.
Exit codes: 0 the task finished, 1 the run failed, 2 bad arguments or missing OPENAI_API_KEY,
130 interrupted with Ctrl+C (the session log keeps what was done).`;

export const runCommand = defineCommand({
  name,
  summary: 'run a task against an OpenAI-compatible endpoint with workspace tools',
  usage,
  help,
  options,
  async execute({ values, positionals }, context) {
    const task = positionals.join(' ').trim();
    if (task === '') throw new UsageError('missing "<task>"', { command: name });
    const window = integerOption({
      command: name,
      name: 'window',
      value: values.window,
      fallback: 128_000,
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
    const approve = values.approve ?? (context.stdin?.isTTY === true ? 'ask' : 'none');
    if (!isApprovalMode(approve)) {
      throw new UsageError(`--approve must be "all", "ask" or "none" (got "${approve}")`, {
        command: name,
      });
    }
    const summarizer = values.summarizer ?? 'model';
    if (summarizer !== 'model' && summarizer !== 'extractive') {
      throw new UsageError(`--summarizer must be "model" or "extractive" (got "${summarizer}")`, {
        command: name,
      });
    }
    if (values.session !== undefined && !isValidSessionId(values.session)) {
      throw new UsageError(
        `--session "${values.session}" is not a valid session id (letters, digits, ".", "_", "-")`,
        { command: name },
      );
    }
    const { OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: baseURL } = context.env;
    if (apiKey === undefined || apiKey === '') {
      throw new UsageError(
        'OPENAI_API_KEY is not set. Set it to your API key, e.g. export OPENAI_API_KEY=sk-...; for another OpenAI-compatible server also set OPENAI_BASE_URL, e.g. export OPENAI_BASE_URL=http://localhost:11434/v1',
        { command: name },
      );
    }
    // Loaded after parsing, so --help and usage errors answer without loading the SDK.
    const { executeRun } = await import('../run/execute-run.js');
    return executeRun(
      {
        task,
        model: values.model ?? defaultModel,
        apiKey,
        baseURL: baseURL === '' ? undefined : baseURL,
        directory: resolve(context.cwd, values.dir ?? DEFAULT_SESSION_DIRECTORY),
        directoryArgument: values.dir,
        sessionId: values.session,
        window,
        workingDirectory: resolve(context.cwd, values.cwd ?? '.'),
        summarizer,
        maxSteps,
        inspectPort: values.inspect ? inspectPort : undefined,
        inspectHost: values['inspect-host'] ?? DEFAULT_INSPECTOR_HOST,
        approve,
      },
      context,
    );
  },
});

function isApprovalMode(value: string): value is ApprovalMode {
  return (APPROVAL_MODES as readonly string[]).includes(value);
}
