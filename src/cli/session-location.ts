import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { isValidSessionId } from '../log/session-id.js';
import { UsageError } from './usage-error.js';

/** Where `run` and `show` keep session logs when no --dir is given. */
export const DEFAULT_SESSION_DIRECTORY = '.loopkeeper/sessions';

export interface SessionLocation {
  readonly directory: string;
  readonly sessionId: string;
}

/**
 * A session named on the command line: either an id (looked up in `directory`) or the path of
 * its `.jsonl` log, as the demo prints it, so a log can be shown without knowing its directory.
 */
export function locateSession({
  session,
  directory,
  cwd,
}: {
  session: string;
  directory: string | undefined;
  cwd: string;
}): SessionLocation {
  if (session.endsWith('.jsonl') || session.includes('/') || isAbsolute(session)) {
    const path = resolve(cwd, session);
    return { directory: dirname(path), sessionId: basename(path, '.jsonl') };
  }
  return { directory: resolve(cwd, directory ?? DEFAULT_SESSION_DIRECTORY), sessionId: session };
}

/** `locateSession` for a command's `<session>` argument: a bad session id is a usage error. */
export function sessionArgument({
  command,
  session,
  directory,
  cwd,
}: {
  command: string;
  session: string;
  directory: string | undefined;
  cwd: string;
}): SessionLocation {
  const location = locateSession({ session, directory, cwd });
  if (!isValidSessionId(location.sessionId)) {
    throw new UsageError(`"${location.sessionId}" is not a valid session id`, { command });
  }
  return location;
}
