import type { SessionEvent } from '../../log/events.js';
import type { ToolCall } from '../../transcript/types.js';

/**
 * How far a replay has read a session log, and what the part read says about the current run:
 * the actors of the replayed loop answer from the events after it.
 */
export class LogCursor {
  #position = 0;
  #answered = 0;
  #openCalls: readonly ToolCall[] = [];

  constructor(readonly events: readonly SessionEvent[]) {}

  /** The event `offset` places after the part read; undefined past the end of the log. */
  peek(offset = 0): SessionEvent | undefined {
    return this.events[this.#position + offset];
  }

  /** The last event read: the replay's clock (`at`) and the `seq` of the step it is in. */
  get last(): SessionEvent | undefined {
    return this.events[this.#position - 1];
  }

  /** Inferences of the current run whose answer is read. */
  get answered(): number {
    return this.#answered;
  }

  /** Tool calls of the latest answer read that have no result read yet. */
  get openCalls(): readonly ToolCall[] {
    return this.#openCalls;
  }

  read(count: number): void {
    for (const event of this.events.slice(this.#position, this.#position + count)) {
      if (event.type === 'run-started') this.#answered = 0;
      if (event.type !== 'items-appended') continue;
      for (const item of event.items) {
        if (item.kind === 'assistant') {
          this.#answered += 1;
          this.#openCalls = item.toolCalls ?? [];
        } else if (item.kind === 'toolResult') {
          this.#openCalls = this.#openCalls.filter((call) => call.id !== item.callId);
        }
      }
    }
    this.#position += count;
  }
}
