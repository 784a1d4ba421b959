import { realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { LoopkeeperError } from '../../errors/loopkeeper-error.js';
import { FileSessionStore } from '../../log/file-store.js';
import { openAIChatModel } from '../../model/openai-chat-model.js';
import { type AgentLoopActor, openAgentLoop } from '../../runtime/create-agent-loop.js';
import { pendingApprovals, resumeRun } from '../../runtime/run-pause.js';
import type { TurnResult } from '../../runtime/run-turn.js';
import { runTurn } from '../../runtime/run-turn.js';
import { createTelemetryHub } from '../../runtime/telemetry-hub.js';
import { type CommandContext, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK } from '../command.js';
import { CommandError } from '../command-error.js';
import { startInspectorRelay } from '../inspector-relay.js';
import { loopkeeperCommand } from '../invocation.js';
import { formatCount, formatQuantity } from '../output/format.js';
import type { ApprovalMode } from './approval-modes.js';
import { createApprovalPrompt } from './approval-prompt.js';
import { createRunCompactor, type SummarizerChoice } from './run-compactor.js';
import { settleApprovals } from './settle-approvals.js';
import { createWorkspaceTools } from './workspace-tools.js';

/** What `loopkeeper run` decided from its command line and environment. */
export interface RunSettings {
  readonly task: string;
  readonly model: string;
  readonly apiKey: string;
  readonly baseURL: string | undefined;
  /** Session log directory, absolute. */
  readonly directory: string;
  /** How to show the directory again in hints: as the user typed it, or undefined for the default. */
  readonly directoryArgument: string | undefined;
  readonly sessionId: string | undefined;
  readonly window: number;
  /** The tools' working directory, absolute but not yet checked. */
  readonly workingDirectory: string;
  readonly summarizer: SummarizerChoice;
  readonly maxSteps: number;
  readonly inspectPort: number | undefined;
  /** Where the relay listens; loopback unless the user widened it. */
  readonly inspectHost: string;
  /** How calls of tools that need approval (write_file) are decided. */
  readonly approve: ApprovalMode;
}

/**
 * One task as a real session: the OpenAI chat adapter (streaming), the workspace tools, the
 * compactor and the file store. The answer streams to stdout; tool calls, compactions,
 * approvals and hints go to stderr so stdout holds only what the model said. A run of the
 * session that did not finish (its process stopped, or it waits for approval) is resumed and
 * finished first.
 */
export async function executeRun(settings: RunSettings, context: CommandContext): Promise<number> {
  const { stderr } = context;
  const style = context.style.stderr;
  const note = (text: string) => stderr.write(`${style.dim(text)}\n`);
  const root = await checkWorkingDirectory(settings.workingDirectory);
  const relay =
    settings.inspectPort === undefined
      ? undefined
      : await startInspectorRelay({ port: settings.inspectPort, host: settings.inspectHost });
  const store = new FileSessionStore({ directory: settings.directory });
  try {
    if (relay !== undefined) {
      note(
        `Inspector relay: ${relay.socketUrl}; open ${relay.pageUrl} in a browser to watch the loop.`,
      );
    }
    const { model, apiKey, baseURL } = settings;
    const loop = await openAgentLoop({
      model: openAIChatModel({
        model,
        apiKey,
        ...(baseURL === undefined ? {} : { baseURL }),
        stream: true,
      }),
      tools: createWorkspaceTools({ root }),
      instructions: instructionsFor(root),
      compactor: createRunCompactor({
        window: settings.window,
        summarizer: settings.summarizer,
        model,
        baseURL,
        apiKey,
      }),
      store,
      maxStepsPerRun: settings.maxSteps,
      ...(settings.sessionId === undefined ? {} : { sessionId: settings.sessionId }),
      ...(relay === undefined ? {} : { inspect: relay.inspect }),
    });
    const { sessionId } = loop.session;
    note(
      `Session ${sessionId} (${join(settings.directory, `${sessionId}.jsonl`)}), model ${model}${baseURL === undefined ? '' : ` at ${baseURL}`}, tools confined to ${root}, approvals: ${settings.approve}`,
    );
    const unfinished = loop.session.unfinishedRun;
    if (unfinished !== null) {
      const waiting = pendingApprovals(loop).length;
      note(
        `Run ${unfinished.runId} of this session did not finish (${waiting > 0 ? `it waits for approval of ${waiting} tool call${waiting === 1 ? '' : 's'}` : 'its process stopped'}); resuming it before the new task.`,
      );
    }
    const stopEcho = echoTelemetry({ loop, context, note });
    const asking = new AbortController();
    const prompt = createApprovalPrompt({
      input: context.stdin ?? Readable.from([]),
      output: stderr,
    });
    let interrupted = false;
    // Ctrl+C aborts the run at any step, also while a question waits for its answer.
    const interrupt = () => {
      interrupted = true;
      loop.send({ type: 'abort' });
      asking.abort();
    };
    process.once('SIGINT', interrupt);
    const settle = (turn: TurnResult) =>
      settleApprovals({
        loop,
        turn,
        mode: settings.approve,
        prompt,
        signal: asking.signal,
        note,
      });
    loop.start();
    let finished: TurnResult;
    try {
      const resumed = unfinished === null ? null : await resumeRun(loop);
      const previous = resumed === null ? null : await settle(resumed);
      if (previous !== null) {
        stopEcho.endLine();
        note(`Resumed run ${previous.runId} ended ${previous.outcome}.`);
      }
      finished =
        previous?.outcome === 'aborted'
          ? previous
          : await settle(await runTurn(loop, settings.task));
    } finally {
      process.off('SIGINT', interrupt);
      prompt.close();
      stopEcho();
      loop.stop();
    }
    if (finished.outcome === 'completed') {
      const directory =
        settings.directoryArgument === undefined ? '' : ` --dir ${settings.directoryArgument}`;
      note(
        `Done in ${formatQuantity(finished.steps, 'step')}. Continue with --session ${sessionId}; audit with: ${loopkeeperCommand({ env: context.env })} show ${sessionId}${directory}`,
      );
      return EXIT_OK;
    }
    if (finished.outcome === 'aborted' && interrupted) {
      stderr.write(
        `${style.red(`loopkeeper run: interrupted (Ctrl+C); the session log keeps everything so far: continue with --session ${sessionId}`)}\n`,
      );
      return EXIT_INTERRUPTED;
    }
    const reason =
      finished.error === null
        ? finished.outcome
        : `${finished.error.name}: ${finished.error.message}`;
    stderr.write(
      `${style.red(`loopkeeper run: error: the run ended ${finished.outcome}: ${reason}`)}\n`,
    );
    return EXIT_FAILURE;
  } finally {
    await store.close();
    relay?.stop();
  }
}

/** Streams answer text to stdout and notes tool calls and compactions on stderr; returns the stop function. */
function echoTelemetry({
  loop,
  context,
  note,
}: {
  loop: AgentLoopActor;
  context: CommandContext;
  note: (text: string) => void;
}): (() => void) & { endLine(): void } {
  const { stdout } = context;
  const hub = createTelemetryHub();
  hub.attach(loop);
  let midLine = false;
  const endLine = () => {
    if (midLine) stdout.write('\n');
    midLine = false;
  };
  hub.on('InferenceDelta', (event) => {
    stdout.write(event.delta);
    midLine = !event.delta.endsWith('\n');
  });
  hub.on('ToolCallStarted', (event) => {
    endLine();
    const call = loop.session.pendingToolCalls.find((pending) => pending.id === event.callId);
    note(`[tool] ${event.toolName} ${call?.arguments ?? ''}`);
  });
  hub.on('ToolCallFinished', (event) => {
    if (event.isError) note(`[tool] ${event.toolName} failed (${event.callId})`);
  });
  hub.on('CompactionFinished', (event) => {
    endLine();
    note(
      `[compaction] ${event.tier}: ${formatCount(event.tokensBefore)} -> ${formatCount(event.tokensAfter)} tokens (${event.strategies.join(', ') || 'no change'})`,
    );
  });
  hub.on('EmergencyPruneApplied', (event) => {
    endLine();
    note(
      `[emergency prune] ${formatCount(event.tokensBefore)} -> ${formatCount(event.tokensAfter)} tokens`,
    );
  });
  hub.on('ApprovalRequested', () => endLine());
  return Object.assign(
    () => {
      endLine();
      hub.detachAll();
    },
    { endLine },
  );
}

function instructionsFor(root: string): string {
  return [
    'You are a careful assistant that answers questions about the files in a working directory and changes them when asked.',
    `The working directory is ${root}. Use list_files, read_file and search_text to look at it, and write_file to change a file; paths are relative to it.`,
    "Every write_file call needs the user's approval and may be denied: when it is, say so and do not claim the change was made.",
    'Read before you answer, cite the files you relied on, and say so when something is not in the files.',
  ].join(' ');
}

async function checkWorkingDirectory(path: string): Promise<string> {
  try {
    if (!(await stat(path)).isDirectory()) throw new Error('not a directory');
    return await realpath(path);
  } catch (error) {
    if (LoopkeeperError.isInstance(error) || CommandError.isInstance(error)) throw error;
    throw new CommandError(`--cwd ${path} is not a readable directory`, {
      code: 'invalid_cwd',
      cause: error,
    });
  }
}
