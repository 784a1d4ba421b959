import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A child process talked to in lines: `send` writes one to its stdin, `next` awaits one. */
export interface LineChild {
  readonly pid: number;
  send(line: string): void;
  next(): Promise<string>;
  /** Closes stdin and waits for the exit code. */
  end(): Promise<number | null>;
}

/** Starts a JavaScript module (see `bundleChild`) with plain `node`. */
export function startLineChild({
  module,
  args,
  uid,
}: {
  readonly module: string;
  readonly args: readonly string[];
  /** Run as this user (the tests run as root; dropping to another user shows EPERM). */
  readonly uid?: number;
}): LineChild {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [module, ...args], {
    cwd: repositoryRoot,
    ...(uid === undefined ? {} : { uid, gid: uid }),
  });
  const queued: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const deliver = (line: string) => {
    const waiter = waiting.shift();
    if (waiter === undefined) queued.push(line);
    else waiter(line);
  };
  createInterface({ input: child.stdout }).on('line', deliver);
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => {
      // Anyone still waiting learns why no line will come.
      for (const waiter of waiting.splice(0)) waiter(`exited ${code}: ${stderr}`);
      resolve(code);
    });
  });
  return {
    pid: child.pid ?? 0,
    send: (line) => child.stdin.write(`${line}\n`),
    next: () => {
      const line = queued.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (child.exitCode !== null) return Promise.resolve(`exited ${child.exitCode}: ${stderr}`);
      return new Promise((resolve) => waiting.push(resolve));
    },
    end: () => {
      child.stdin.end();
      return exited;
    },
  };
}
