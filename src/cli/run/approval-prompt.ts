import { createInterface } from 'node:readline';
import type { PendingApproval } from '../../events/telemetry-events.js';
import type { ToolApproval } from '../../runtime/run-pause.js';
import type { OutputStream } from '../output/style.js';

/** A person's answer to one approval question. */
export interface ApprovalAnswer {
  readonly approved: boolean;
  readonly reason?: string;
}

/**
 * Reads an answer: `y` or `yes` approves, `n`, `no` or an empty line denies, and text after
 * the word is the reason (`n not on Fridays`, `no: too risky`). Anything else is no answer.
 */
export function parseApprovalAnswer(line: string): ApprovalAnswer | undefined {
  const text = line.trim();
  if (text === '') return { approved: false };
  const match = /^(y|yes|n|no)(?:$|[\s:,;.-]+(.*)$)/i.exec(text);
  if (match === null) return undefined;
  const approved = (match[1] ?? '').toLowerCase().startsWith('y');
  const reason = (match[2] ?? '').trim();
  return reason === '' ? { approved } : { approved, reason };
}

/** Asks on a terminal (or any line input) whether each waiting tool call may run. */
export interface ApprovalPrompt {
  /**
   * One question per call, in order. Resolves with a decision per call, or null when `signal`
   * aborted the asking (Ctrl+C). Input that ends first denies the calls left, saying so.
   */
  ask(calls: readonly PendingApproval[], signal: AbortSignal): Promise<ToolApproval[] | null>;
  /** Stops reading the input, so the process can exit. */
  close(): void;
}

/** The reason recorded when the input ended before a call was answered. */
export const NO_ANSWER_REASON = 'no answer: the input of loopkeeper run ended';

/**
 * An `ApprovalPrompt` over a line input (stdin) that writes its questions to `output` (stderr,
 * so stdout keeps only the model's answer). Lines are read through one readline interface for
 * the whole run, so answers piped in ahead of the questions are not lost; it does not take the
 * terminal over, so Ctrl+C stays the process's SIGINT.
 */
export function createApprovalPrompt({
  input,
  output,
}: {
  readonly input: NodeJS.ReadableStream;
  readonly output: OutputStream;
}): ApprovalPrompt {
  const interactive = (input as { isTTY?: boolean }).isTTY === true;
  let lines: ReturnType<typeof createInterface> | undefined;
  const queued: string[] = [];
  let ended = false;
  let waiter: ((line: string | null) => void) | undefined;
  const deliver = (line: string | null) => {
    const resolve = waiter;
    waiter = undefined;
    resolve?.(line);
  };
  const open = () => {
    if (lines !== undefined) return;
    lines = createInterface({ input, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on('line', (line) => (waiter === undefined ? queued.push(line) : deliver(line)));
    lines.on('close', () => {
      ended = true;
      deliver(null);
    });
  };
  const nextLine = (signal: AbortSignal): Promise<string | null> => {
    const line = queued.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (ended || signal.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const onAbort = () => deliver(null);
      signal.addEventListener('abort', onAbort, { once: true });
      waiter = (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      };
    });
  };
  return {
    async ask(calls, signal) {
      open();
      const decisions: ToolApproval[] = [];
      for (const call of calls) {
        output.write(
          `[approval] ${call.toolName} (${call.callId}) wants to run with ${call.arguments}\n`,
        );
        let answer: ApprovalAnswer | undefined;
        while (answer === undefined) {
          output.write(`Allow ${call.toolName}? [y/N, or n <reason>] `);
          const line = await nextLine(signal);
          if (signal.aborted) {
            output.write('\n');
            return null;
          }
          // Piped answers are not echoed by a terminal: echo them, so stderr reads as a dialogue.
          if (line !== null && !interactive) output.write(`${line}\n`);
          if (line === null) {
            output.write(
              `\n[approval] ${call.toolName} (${call.callId}) denied: ${NO_ANSWER_REASON}\n`,
            );
            answer = { approved: false, reason: NO_ANSWER_REASON };
            break;
          }
          answer = parseApprovalAnswer(line);
          if (answer === undefined)
            output.write('Answer y or n (n <reason> tells the model why).\n');
        }
        decisions.push({ callId: call.callId, ...answer });
      }
      return decisions;
    },
    close() {
      lines?.close();
    },
  };
}
