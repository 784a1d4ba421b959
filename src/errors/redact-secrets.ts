/**
 * Credentials that can show up in error text a provider or a proxy sends back (some echo the
 * request's headers): an `Authorization` header's value, a bearer token, an OpenAI-style
 * `sk-` key, and `api-key` / `x-api-key` / `api_key` values, in headers, JSON or query strings.
 */
const SECRET_PATTERNS: readonly RegExp[] = [
  // `Authorization: Bearer abc`, `"authorization":"Basic abc"`: the whole value after the name.
  /(authorization["']?\s*[:=]\s*["']?)(?:bearer\s+|basic\s+)?[^\s"',;}]+/gi,
  /\bbearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  /((?:x-)?api[-_]?key["']?\s*[:=]\s*["']?)[^\s"',;&}]+/gi,
];

const REDACTED = '[redacted]';

/**
 * `text` with every credential it holds replaced by `[redacted]`. Every loopkeeper error runs
 * its message through this, so provider text stored in the log, telemetry, spans and CLI
 * output never carries a key.
 */
export function redactSecrets(text: string): string {
  let result = text;
  for (const pattern of SECRET_PATTERNS) {
    result = result.replace(pattern, (match, name: unknown) =>
      typeof name === 'string' && match.startsWith(name) ? `${name}${REDACTED}` : REDACTED,
    );
  }
  return result;
}
