import { join } from 'node:path';
import { ConfigError } from '../../errors/config-error.js';
import type { SessionEvent } from '../../log/events.js';
import { FileSessionStore } from '../../log/file-store.js';
import { createTokenCounter } from '../../tokens/create-token-counter.js';
import type { TokenEncoding } from '../../tokens/types.js';
import { type CommandContext, EXIT_OK } from '../command.js';
import type { SessionLocation } from '../session-location.js';
import { renderSessionAudit } from './render-audit.js';
import { buildSessionAudit } from './session-audit.js';

export interface ShowSettings {
  readonly location: SessionLocation;
  readonly encoding: TokenEncoding;
  readonly json: boolean;
}

/** Reads a session log (no lock: reading never blocks a writer) and prints its audit. */
export async function executeShow(
  { location: { directory, sessionId }, encoding, json }: ShowSettings,
  context: CommandContext,
): Promise<number> {
  const store = new FileSessionStore({ directory });
  const events: SessionEvent[] = [];
  try {
    const known = await store.list();
    if (!known.includes(sessionId)) {
      const hint =
        known.length === 0
          ? 'it holds no sessions'
          : `sessions there: ${known.slice(-10).join(', ')}`;
      throw new ConfigError(`No session "${sessionId}" in ${directory} (${hint})`, {
        code: 'session_not_found',
      });
    }
    for await (const event of store.read(sessionId)) events.push(event);
  } finally {
    await store.close();
  }
  const tokens = await createTokenCounter({ encoding });
  const audit = buildSessionAudit({ sessionId, events, tokens });
  const path = join(directory, `${sessionId}.jsonl`);
  const text = json
    ? JSON.stringify({ path, ...audit }, null, 2)
    : renderSessionAudit({ audit, path, style: context.style.stdout });
  context.stdout.write(`${text}\n`);
  return EXIT_OK;
}
