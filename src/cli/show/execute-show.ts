import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SessionEvent } from '../../log/events.js';
import { FileSessionStore } from '../../log/file-store.js';
import { readLogFile } from '../../log/read-log-file.js';
import type { SessionLogScan } from '../../log/session-log-parser.js';
import { createTokenCounter } from '../../tokens/create-token-counter.js';
import type { TokenEncoding } from '../../tokens/types.js';
import { type CommandContext, EXIT_OK } from '../command.js';
import { CommandError } from '../command-error.js';
import type { SessionLocation } from '../session-location.js';
import { renderSessionAudit } from './render-audit.js';
import { buildSessionAudit } from './session-audit.js';

export interface ShowSettings {
  readonly location: SessionLocation;
  /** The <session> argument resolved as a path, to tell a wrong file from a missing session. */
  readonly argumentPath: string;
  readonly encoding: TokenEncoding;
  readonly json: boolean;
}

/**
 * Reads a session log (no lock: reading never blocks a writer) and prints its audit. A torn
 * last line (a write cut short) is not an event: it is left out, and a note on stderr says so.
 */
export async function executeShow(
  { location: { directory, sessionId }, argumentPath, encoding, json }: ShowSettings,
  context: CommandContext,
): Promise<number> {
  const path = join(directory, `${sessionId}.jsonl`);
  const store = new FileSessionStore({ directory });
  try {
    const known = await store.list();
    if (!known.includes(sessionId)) {
      if (!argumentPath.endsWith('.jsonl') && (await isFile(argumentPath))) {
        throw new CommandError(
          `${argumentPath} is not a session log: show reads a session id or a session's .jsonl log`,
          { code: 'not_a_session_log' },
        );
      }
      const hint =
        known.length === 0
          ? 'it holds no sessions'
          : `sessions there: ${known.slice(-10).join(', ')}`;
      throw new CommandError(`No session "${sessionId}" in ${directory} (${hint})`, {
        code: 'session_not_found',
      });
    }
  } finally {
    await store.close();
  }
  const { events, scan } = await readWholeLog(path);
  if (scan.torn !== undefined) {
    context.stderr.write(
      `${context.style.stderr.dim(`loopkeeper show: note: line ${scan.torn.lineNumber} of ${path} is torn (${scan.torn.bytes} bytes of a write cut short, e.g. by a crash); it is not an event and is left out. The log is unchanged; its next writer cuts the line away.`)}\n`,
    );
  }
  const tokens = await createTokenCounter({ encoding });
  const audit = buildSessionAudit({ sessionId, events, tokens });
  const text = json
    ? JSON.stringify({ path, ...audit }, null, 2)
    : renderSessionAudit({ audit, path, style: context.style.stdout });
  context.stdout.write(`${text}\n`);
  return EXIT_OK;
}

async function readWholeLog(
  path: string,
): Promise<{ events: SessionEvent[]; scan: SessionLogScan }> {
  const events: SessionEvent[] = [];
  const reader = readLogFile({ path });
  for (let step = await reader.next(); ; step = await reader.next()) {
    if (step.done === true) return { events, scan: step.value };
    events.push(step.value);
  }
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}
