import { join } from 'node:path';
import { createTokenCounter } from '../../tokens/create-token-counter.js';
import type { TokenEncoding } from '../../tokens/types.js';
import { type CommandContext, EXIT_OK } from '../command.js';
import { readSessionEvents } from '../read-session-events.js';
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
  const events = await readSessionEvents({ directory, sessionId });
  const tokens = await createTokenCounter({ encoding });
  const audit = buildSessionAudit({ sessionId, events, tokens });
  const path = join(directory, `${sessionId}.jsonl`);
  const text = json
    ? JSON.stringify({ path, ...audit }, null, 2)
    : renderSessionAudit({ audit, path, style: context.style.stdout });
  context.stdout.write(`${text}\n`);
  return EXIT_OK;
}
