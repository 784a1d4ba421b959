import type { SessionEvent } from '../../log/events.js';
import type { ToolCall } from '../../transcript/types.js';

/**
 * How far a replay has read a session log, and what the part read says about the current run:
 * the actors of the replayed loop answer from the events after it.
 */
export class LogCursor {
  position = 0;
  /** Inferences of the current run whose answer is read. */
  answered = 0;
  /** Tool calls of the latest answer read that have no result read yet. */
  openCalls: readonly ToolCall[] = [];

  constructor(readonly events: readonly SessionEvent[]) {}

  /** The event `offset` places after the part read; undefined past the end of the log. */
  peek(offset = 0): SessionEvent | undefined {
    return this.events[this.position + offset];
  }

  /** The last event read: the replay's clock (`at`) and the `seq` of the step it is in. */
  get last(): SessionEvent | undefined {
    return this.events[this.position - 1];
  }

  read(count: number): void {
    const events = this.events.slice(this.position, this.position + count);
    this.position += count;
    for (const event of events) {
      if (event.type === 'run-started') this.answered = 0;
      for (const item of event.type === 'items-appended' ? event.items : []) {
        if (item.kind === 'assistant')
          [this.answered, this.openCalls] = [this.answered + 1, item.toolCalls ?? []];
        if (item.kind === 'toolResult')
          this.openCalls = this.openCalls.filter((call) => call.id !== item.callId);
      }
    }
  }

  /** Where the run ends next without another step: after the results written for open calls. */
  runEnd(): { readonly offset: number; readonly event: SessionEvent } | undefined {
    let offset = 0;
    while (toolResultsOnly(this.peek(offset))) offset += 1;
    const event = this.peek(offset);
    return event?.type === 'run-finished' || event?.type === 'run-started'
      ? { offset, event }
      : undefined;
  }
}

export const toolResultsOnly = (event: SessionEvent | undefined) =>
  event?.type === 'items-appended' && event.items.every((item) => item.kind === 'toolResult');
