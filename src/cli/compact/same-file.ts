import { statSync } from 'node:fs';
import { resolve } from 'node:path';

/** Whether two paths name one file: the same path, or links to the same inode. */
export function isSameFile(first: string, second: string): boolean {
  if (resolve(first) === resolve(second)) return true;
  try {
    const [a, b] = [statSync(first), statSync(second)];
    return a.dev === b.dev && a.ino === b.ino;
  } catch {
    // One of them does not exist (yet), so writing the output cannot touch the input.
    return false;
  }
}
