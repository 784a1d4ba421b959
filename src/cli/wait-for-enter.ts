import { createInterface } from 'node:readline';

/** Resolves when the user presses Enter (or the input ends). */
export function waitForEnter(input: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    const lines = createInterface({ input });
    const done = () => {
      lines.close();
      resolve();
    };
    lines.once('line', done);
    lines.once('close', resolve);
  });
}
