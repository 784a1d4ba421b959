import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as (options?: unknown) => void;

/** Heap in use after full garbage collections, in bytes. */
export function heapAfterGc(): number {
  for (let round = 0; round < 3; round += 1) collect();
  return process.memoryUsage().heapUsed;
}
