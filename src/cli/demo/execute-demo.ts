import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CommandContext, EXIT_OK } from '../command.js';
import type { InspectorRelay } from '../inspector-relay.js';
import { loopkeeperCommand } from '../invocation.js';
import { formatCount, formatPercent } from '../output/format.js';
import { createProgressLine } from '../output/progress-line.js';
import { waitForEnter } from '../wait-for-enter.js';
import { demoSummaryJson, renderDemoSummary } from './demo-summary.js';
import { demoRecordings } from './load-recordings.js';
import { type DemoProgress, runDemo } from './run-demo.js';

export interface DemoSettings {
  /** Where the session log goes; a new temporary directory when undefined. */
  readonly directory: string | undefined;
  /** Keep the temporary directory (when `directory` is undefined) instead of removing it at the end. */
  readonly keep: boolean;
  readonly window: number;
  readonly maxSteps: number;
  /** Other transcripts to replay; the bundled fixtures when undefined. */
  readonly transcripts: string | undefined;
  readonly inspectPort: number | undefined;
  /** Where the relay listens; loopback unless the user widened it. */
  readonly inspectHost: string;
  readonly json: boolean;
}

/**
 * Runs the demo with live progress on stderr and the summary on stdout. With --json, stdout
 * carries only the JSON document and the header lines move to stderr too. A temporary session
 * directory is removed at the end, whatever the outcome, unless --keep asks to keep it; a
 * directory given with --dir is the user's and is kept.
 */
export async function executeDemo(
  settings: DemoSettings,
  context: CommandContext,
): Promise<number> {
  const { stdout, stderr } = context;
  const style = context.style.stdout;
  const say = (text: string) => (settings.json ? stderr : stdout).write(`${text}\n`);
  const { recordings, synthetic } = await demoRecordings(settings.transcripts);
  const temporary = settings.directory === undefined;
  const directory = settings.directory ?? (await mkdtemp(join(tmpdir(), 'loopkeeper-demo-')));
  const removeAtEnd = temporary && !settings.keep;
  let relay: InspectorRelay | undefined;
  try {
    relay = await startRelay({ settings, context, say });
    const progress = createProgressLine({ stream: stderr });
    let last: DemoProgress | undefined;
    const result = await runDemo({
      recordings,
      directory,
      window: settings.window,
      maxSteps: settings.maxSteps,
      ...(relay === undefined ? {} : { inspect: relay.inspect }),
      onStart: (facts) => {
        say(
          style.bold(
            `Replaying ${recordings.length} ${synthetic ? 'synthetic' : 'recorded'} sessions as one: ${facts.turns} user turns, ${facts.answers} model answers.`,
          ),
        );
        say(
          `Window ${formatCount(settings.window)} tokens; compaction starts at ${formatCount(facts.maxTokens)} and aims at ${formatCount(facts.targetTokens)}. Summarizer: extractive (offline).`,
        );
        if (synthetic) {
          say(
            'The installed package ships no recorded transcripts: these sessions are made in code. Pass --transcripts <dir> to replay your own, or run the demo from a source checkout for the five real ones.',
          );
        }
        say(`Session log: ${facts.logPath}`);
      },
      onProgress: (state) => {
        last = state;
        progress.update(state.step, progressText(state));
      },
    });
    if (last !== undefined) progress.finish(last.step, progressText(last));
    if (settings.json) {
      stdout.write(
        `${JSON.stringify({ ...demoSummaryJson(result), logKept: !removeAtEnd }, null, 2)}\n`,
      );
    } else {
      stdout.write(
        `\n${style.bold('Summary')}\n${renderDemoSummary(result, { logKept: !removeAtEnd })}\n\n`,
      );
      stdout.write(
        removeAtEnd
          ? `The session log was in a temporary directory, removed now; run with --keep (or --dir DIR) to keep it for "${loopkeeperCommand({ env: context.env })} show".\n`
          : `Kept the session log in ${directory}. Audit the session: ${loopkeeperCommand({ env: context.env })} show ${result.logPath}\n`,
      );
    }
    return EXIT_OK;
  } finally {
    relay?.stop();
    if (removeAtEnd) await rm(directory, { recursive: true, force: true });
  }
}

function progressText(state: DemoProgress): string {
  return `step ${state.step} | turn ${state.turn}/${state.turns} | history ${formatCount(state.effectiveTokens)}/${formatCount(state.window)} tokens (${formatPercent(state.effectiveTokens, state.window)}) | compactions ${state.compactions} | emergency prunes ${state.emergencyPrunes}`;
}

/** Starts the inspector relay when asked; on a terminal, waits until the viewer is open. */
async function startRelay({
  settings,
  context,
  say,
}: {
  settings: DemoSettings;
  context: CommandContext;
  say: (text: string) => void;
}): Promise<InspectorRelay | undefined> {
  if (settings.inspectPort === undefined) return undefined;
  const { startInspectorRelay } = await import('../inspector-relay.js');
  const relay = await startInspectorRelay({
    port: settings.inspectPort,
    host: settings.inspectHost,
  });
  say(`Inspector relay: ${relay.socketUrl}`);
  say(
    `Open ${relay.pageUrl} in a browser to watch the loop (the viewer page loads from stately.ai).`,
  );
  // The replay takes seconds; on a terminal, give the viewer time to connect first.
  if (context.stdin?.isTTY === true) {
    say('Press Enter to start the replay.');
    await waitForEnter(context.stdin);
  }
  return relay;
}
