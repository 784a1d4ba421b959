import { ConfigError } from '../errors/config-error.js';
import { DurableStepError } from '../errors/durable-step-error.js';
import { LOOP_OBJECT_NAME } from './loop-object.js';
import type { AbortResult } from './loop-object-types.js';

export interface AbortLoopSessionOptions {
  /** The restate-server's ingress, e.g. `http://127.0.0.1:8080`. */
  readonly ingressUrl: string;
  /** Its admin API, e.g. `http://127.0.0.1:9070`: used only when cancellation is not enough. */
  readonly adminUrl: string;
  readonly sessionId: string;
  /** The object's name, when `createLoopObject` was given one. */
  readonly name?: string;
  /** How long the cancelled invocation may take to end before it is killed. */
  readonly graceMs?: number;
  /** Sent with every request (authentication for the ingress and the admin API). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface AbortLoopSessionResult {
  /**
   * `idle`: nothing ran. `cancelled`: the run ended through Restate's cancellation (`aborted`,
   * synthetic tool results). `killed`: it did not end within `graceMs`, so the invocation was
   * killed and its run closed as `failed` (`interrupted`), open calls answered.
   */
  readonly outcome: 'idle' | 'cancelled' | 'killed';
  readonly invocationId: string | null;
  /** The run `close()` closed after a kill. */
  readonly closed: string | null;
}

const POLL_MS = 100;

/**
 * Aborts a session's running `send` or `approve` even when cancellation cannot reach it: it
 * calls the object's `abort()` (Restate's cancellation, which a running or paused invocation
 * processes), waits up to `graceMs` for the invocation to end, and otherwise kills it through
 * Restate's admin API and calls `close()`, which closes the run in the log. Either way the
 * session ends in a defined state: its log intact, every run closed, the next `send` accepted.
 *
 * @example
 * ```ts
 * import { abortLoopSession } from 'loopkeeper/restate';
 *
 * const { outcome } = await abortLoopSession({
 *   ingressUrl: 'http://127.0.0.1:8080',
 *   adminUrl: 'http://127.0.0.1:9070',
 *   sessionId: 'support-42',
 * });
 * console.log(outcome); // 'idle', 'cancelled' or 'killed'
 * ```
 */
export async function abortLoopSession({
  ingressUrl,
  adminUrl,
  sessionId,
  name = LOOP_OBJECT_NAME,
  graceMs = 5_000,
  headers = {},
}: AbortLoopSessionOptions): Promise<AbortLoopSessionResult> {
  if (!Number.isFinite(graceMs) || graceMs < 0) {
    throw new ConfigError(`abortLoopSession: graceMs must be >= 0, got ${graceMs}`, {
      code: 'config_invalid_option',
    });
  }
  const object = `${ingressUrl.replace(/\/$/, '')}/${encodeURIComponent(name)}/${encodeURIComponent(sessionId)}`;
  const admin = adminUrl.replace(/\/$/, '');
  const aborted = (await call(`${object}/abort`, { method: 'POST', headers })) as AbortResult;
  const invocationId = aborted.invocationId;
  if (!aborted.aborted || invocationId === null) {
    return { outcome: 'idle', invocationId: null, closed: null };
  }
  if (!/^inv_[0-9A-Za-z]+$/.test(invocationId)) {
    throw new DurableStepError(`abort() answered an invocation id of an unknown form`);
  }
  const ended = () => invocationEnded({ admin, invocationId, headers });
  if (await waitUntil(ended, graceMs)) return { outcome: 'cancelled', invocationId, closed: null };
  await call(`${admin}/invocations/${invocationId}/kill`, { method: 'PATCH', headers });
  await waitUntil(ended, Math.max(graceMs, 5_000));
  const { closed } = (await call(`${object}/close`, { method: 'POST', headers })) as {
    closed: string | null;
  };
  return { outcome: 'killed', invocationId, closed };
}

async function invocationEnded({
  admin,
  invocationId,
  headers,
}: {
  readonly admin: string;
  readonly invocationId: string;
  readonly headers: Readonly<Record<string, string>>;
}): Promise<boolean> {
  const { rows } = (await call(`${admin}/query`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      query: `SELECT status FROM sys_invocation WHERE id = '${invocationId}'`,
    }),
  })) as { rows?: readonly { status?: string }[] };
  const status = rows?.[0]?.status;
  return status === undefined || status === 'completed';
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function call(url: string, init: RequestInit): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw new DurableStepError(`abortLoopSession: ${url} could not be reached`, { cause: error });
  }
  const text = await response.text();
  if (!response.ok) {
    throw new DurableStepError(
      `abortLoopSession: ${init.method} ${url} answered ${response.status}: ${text.slice(0, 300)}`,
    );
  }
  return text === '' ? null : (JSON.parse(text) as unknown);
}
