import { ConfigError } from '../errors/index.js';
import { sliceText } from '../transcript/code-points.js';

/**
 * Longest accepted session id; ids become file names, which most file systems cap at 255 bytes.
 *
 * @example
 * ```ts
 * import { MAX_SESSION_ID_LENGTH } from 'loopkeeper/log';
 *
 * const sessionId = `tenant-7/${'x'.repeat(200)}`
 *   .replaceAll('/', '-')
 *   .slice(0, MAX_SESSION_ID_LENGTH);
 * console.log(sessionId.length);
 * ```
 */
export const MAX_SESSION_ID_LENGTH = 128;

const SESSION_ID_PATTERN = /^[A-Za-z0-9._-]+$/;
// Windows opens a device instead of a file for these names, whatever the case or extension.
const WINDOWS_RESERVED_NAME = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\.|$)/i;

/**
 * Whether `sessionId` is safe to use as a file name: letters, digits, `.`, `_` and `-`, 1 to 128
 * characters, not starting with `.` and never containing `..`, so it cannot leave the store's
 * directory or hide as a dot file; and not a Windows device name (`con`, `nul.txt`, `COM1`), so
 * the same session opens on every platform.
 *
 * @example
 * ```ts
 * import { isValidSessionId } from 'loopkeeper/log';
 *
 * console.log(isValidSessionId('support-42'), isValidSessionId('../secrets')); // true false
 * ```
 */
export function isValidSessionId(sessionId: unknown): sessionId is string {
  return (
    typeof sessionId === 'string' &&
    sessionId.length >= 1 &&
    sessionId.length <= MAX_SESSION_ID_LENGTH &&
    SESSION_ID_PATTERN.test(sessionId) &&
    !sessionId.startsWith('.') &&
    !sessionId.includes('..') &&
    !WINDOWS_RESERVED_NAME.test(sessionId)
  );
}

/**
 * Throws `ConfigError` (code `invalid_session_id`) unless `sessionId` passes `isValidSessionId`.
 *
 * @example
 * ```ts
 * import { assertValidSessionId } from 'loopkeeper/log';
 *
 * const sessionId: unknown = 'support-42';
 * assertValidSessionId(sessionId); // throws ConfigError for '../etc/passwd', '' or too long
 * console.log(sessionId.toUpperCase());
 * ```
 */
export function assertValidSessionId(sessionId: unknown): asserts sessionId is string {
  if (isValidSessionId(sessionId)) return;
  throw new ConfigError(
    `Invalid session id ${describe(sessionId)}: use 1 to ${MAX_SESSION_ID_LENGTH} letters, digits, '.', '_' or '-', not starting with '.', without '..', and not a Windows device name (con, prn, aux, nul, com1-9, lpt1-9)`,
    { code: 'invalid_session_id' },
  );
}

function describe(value: unknown): string {
  if (typeof value !== 'string') return `(a ${value === null ? 'null' : typeof value})`;
  // A 10,000-character id should not produce a 10,000-character message.
  const shown = value.length > 40 ? `${sliceText(value, 0, 40)}…` : value;
  return `${JSON.stringify(shown)} (${value.length} characters)`;
}
