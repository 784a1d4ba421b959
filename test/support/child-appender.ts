import { FileSessionStore } from 'loopkeeper';

/**
 * Crash-test child: appends batches to one session of a FileSessionStore in an endless loop and
 * prints the last seq of each batch once its append has resolved (written and fsynced). The
 * test kills it with SIGKILL part-way and checks that nothing it printed was lost.
 *
 * Usage: node --import tsx child-appender.ts <directory> <sessionId>
 */

const [directory, sessionId] = process.argv.slice(2);
if (directory === undefined || sessionId === undefined) {
  process.stderr.write('usage: child-appender <directory> <sessionId>\n');
  process.exit(2);
}

const store = new FileSessionStore({ directory });
for (let round = 1; ; round += 1) {
  // Batches of 1 to 3 events, some large enough to span many pages, so a kill can land
  // inside a write.
  const size = (round * 7919) % 150_000;
  const events = Array.from({ length: 1 + (round % 3) }, (_, index) => ({
    type: 'items-appended' as const,
    items: [{ kind: 'user' as const, id: `r${round}-${index}`, content: 'x'.repeat(size) }],
  }));
  const stored = await store.append(sessionId, events);
  process.stdout.write(`${stored.at(-1)?.seq}\n`);
}
