import { agentLoopMachine } from '../../../machines/agent-loop.machine.js';
import { type CommandContext, EXIT_OK } from '../command.js';
import { startInspectorRelay } from '../inspector-relay.js';
import { readSessionEvents } from '../read-session-events.js';
import type { SessionLocation } from '../session-location.js';
import { waitForEnter } from '../wait-for-enter.js';
import { publishReplay } from './publish-replay.js';
import { type ReplayStep, replaySteps } from './replay-steps.js';

export interface InspectSettings {
  readonly location: SessionLocation;
  readonly port: number;
  readonly host: string;
  readonly stepDelayMs: number;
}

/**
 * Replays a recorded session into the Stately inspector through the local relay. On a terminal
 * it waits for Enter before the replay (so the viewer is open and sees it from the start) and
 * again after it, keeping the relay up while the user looks.
 */
export async function executeInspect(
  { location, port, host, stepDelayMs }: InspectSettings,
  context: CommandContext,
): Promise<number> {
  const events = await readSessionEvents(location);
  const steps = replaySteps({ sessionId: location.sessionId, events });
  const relay = await startInspectorRelay({ port, host, portFlag: '--port' });
  const say = (text: string) => context.stdout.write(`${text}\n`);
  const interactive = context.stdin?.isTTY === true;
  try {
    say(`Inspector relay: ${relay.socketUrl}`);
    say(
      `Open ${relay.pageUrl} in a browser to watch the replay (the viewer page loads from stately.ai).`,
    );
    if (interactive && context.stdin !== undefined) {
      say('Press Enter to start the replay.');
      await waitForEnter(context.stdin);
    }
    await publishReplay({
      inspector: relay.inspector,
      steps,
      definition: agentLoopMachine.config,
      sessionId: location.sessionId,
      stepDelayMs,
    });
    const runs = steps.filter((step) => step.event.type === 'user.message').length;
    const compactions = steps.filter(
      (step) => step.state === 'running.compacting' || step.state === 'running.emergencyPruning',
    ).length;
    say(
      `Replayed ${location.sessionId}: ${events.length} log events, ${runs} run(s), ${steps.length} states, ${compactions} compaction(s).${waitingNote(steps)}`,
    );
    if (interactive && context.stdin !== undefined) {
      say('Press Enter to stop the relay.');
      await waitForEnter(context.stdin);
    } else {
      // The relay buffers what it got; give a viewer that is already connected time to receive it.
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    relay.stop();
  }
  return EXIT_OK;
}

/** Said when the replay ends inside a run: a paused run waits for approval, else it stopped. */
function waitingNote(steps: readonly ReplayStep[]): string {
  const last = steps.at(-1);
  if (last === undefined || last.state === 'idle') return '';
  return last.state === 'running.awaitingApproval'
    ? ` The last run (${last.context.runId}) waits for approval.`
    : ` The last run (${last.context.runId}) did not finish; it stays in ${last.state}.`;
}
