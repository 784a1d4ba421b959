/**
 * Who may open a WebSocket to the inspector relay. The relay carries the session's text both
 * ways (a viewer reads every event, and anything a client sends is broadcast to the viewers),
 * so a web page the user happens to have open must not reach it: browsers send `Origin` on
 * every WebSocket upgrade and let any page connect anywhere, loopback included.
 *
 * Allowed:
 * - no `Origin` header: not a browser (the loop's own Node client, `wscat`, a test);
 * - a loopback origin, any port: `http://localhost`, `http://127.0.0.1`, `http://[::1]`
 *   (the relay's own page, served from loopback);
 * - `https://stately.ai`, where the Stately viewer the page embeds is served from;
 * - when the relay was widened with `--host`, an origin on that host (its own page, opened from
 *   another machine).
 *
 * Anything else (`https://evil.example`, a rebound DNS name, `null` from a sandboxed frame) is
 * refused with HTTP 403 before the upgrade.
 */
export const STATELY_VIEWER_ORIGIN = 'https://stately.ai';

/** Loopback only, unless the user widens it with `--host` (`--inspect-host` on run and demo). */
export const DEFAULT_INSPECTOR_HOST = '127.0.0.1';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isAllowedOrigin({
  origin,
  host,
}: {
  /** The request's `Origin` header, undefined when absent. */
  readonly origin: string | undefined;
  /** The host the relay listens on. */
  readonly host: string;
}): boolean {
  if (origin === undefined) return true;
  if (origin === STATELY_VIEWER_ORIGIN) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.origin !== origin) return false;
  if (LOOPBACK_HOSTS.has(url.hostname)) return true;
  const listening = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return !isWildcard(host) && url.hostname === listening;
}

/** Hosts that mean "every interface": no page host can be told from them. */
export function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

/** Whether the relay listens on loopback only. */
export function isLoopbackHost(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === 'localhost';
}
