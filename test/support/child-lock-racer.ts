/**
 * Lock-race child: prints `ready`, then for every `go <round>` line on stdin tries once to open
 * the session for writing with a fresh FileSessionStore. With the lock it creates
 * `<directory>/holder` exclusively (which fails only if another process holds the lock too),
 * appends three events, waits a moment, removes `holder` and closes the store. Prints
 * `<round> won`, `<round> locked`, `<round> overlap` or `<round> error <message>`.
 *
 * Usage: node --import tsx child-lock-racer.ts <directory> <sessionId>
 */
import { unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { FileSessionStore } from 'loopkeeper';

const [directory, sessionId] = process.argv.slice(2);
if (directory === undefined || sessionId === undefined) {
  process.stderr.write('usage: child-lock-racer <directory> <sessionId>\n');
  process.exit(2);
}
const holder = join(directory, 'holder');

async function race(round: string): Promise<string> {
  const store = new FileSessionStore({ directory: directory as string });
  try {
    const { lastSeq } = await store.openSession(sessionId as string);
    let overlap = false;
    await writeFile(holder, `${process.pid}\n`, { flag: 'wx' }).catch(() => {
      overlap = true;
    });
    const events = [1, 2, 3].map((index) => ({
      type: 'items-appended' as const,
      items: [{ kind: 'user' as const, id: `${process.pid}-${round}-${index}`, content: 'x' }],
    }));
    await store.append(sessionId as string, events, { expectedSeq: lastSeq });
    await sleep(3);
    if (overlap) return 'overlap';
    await unlink(holder);
    return 'won';
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'session_locked') return 'locked';
    return `error ${code} ${(error as Error).message}`;
  } finally {
    await store.close().catch(() => undefined);
  }
}

const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
for await (const line of lines) {
  const round = /^go (\d+)$/.exec(line)?.[1];
  if (round === undefined) break;
  process.stdout.write(`${round} ${await race(round)}\n`);
}
