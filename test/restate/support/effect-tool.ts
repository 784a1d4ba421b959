import { appendFileSync, readFileSync } from 'node:fs';
import type { ToolDefinition } from 'loopkeeper';
import type { DurableToolExecutionOptions } from 'loopkeeper/restate';
import { abortableDelay } from '../../../src/testing/abortable-delay.js';

/**
 * A tool with a visible side effect: it writes `tool start` and, after its delay, `tool done`
 * lines with its idempotency key and the worker's pid to the effects file. Between the two it
 * applies its effect the way a tool should, keyed by the idempotency key: an `tool applied`
 * line is written only when the file holds none for that key yet, so a call that runs again
 * (after a crash) applies once. With `outputBytes` it returns that many characters instead of
 * `applied <label>`.
 */
export function effectTool({
  effectsFile,
}: {
  readonly effectsFile?: string;
}): ToolDefinition<{ label: string; delayMs?: number; outputBytes?: number }> {
  const write = (line: string) => effectsFile !== undefined && appendFileSync(effectsFile, line);
  return {
    name: 'effect',
    description: 'Applies a labelled side effect after an optional delay.',
    parameters: {
      type: 'object',
      properties: {
        label: { type: 'string' },
        delayMs: { type: 'number' },
        outputBytes: { type: 'number' },
      },
      required: ['label'],
    },
    async execute({ label, delayMs = 0, outputBytes }, options) {
      const { idempotencyKey, signal } = options as DurableToolExecutionOptions;
      write(`tool start ${idempotencyKey} ${label} ${process.pid}\n`);
      const finished = await abortableDelay({ milliseconds: delayMs, signal });
      if (!finished) throw new Error('aborted');
      if (!appliedBefore(effectsFile, idempotencyKey)) {
        write(`tool applied ${idempotencyKey} ${label} ${process.pid}\n`);
      }
      write(`tool done ${idempotencyKey} ${label} ${process.pid}\n`);
      return outputBytes === undefined ? `applied ${label}` : 'x'.repeat(outputBytes);
    },
  };
}

function appliedBefore(effectsFile: string | undefined, key: string): boolean {
  if (effectsFile === undefined) return false;
  try {
    return readFileSync(effectsFile, 'utf8').includes(`tool applied ${key} `);
  } catch {
    return false;
  }
}
