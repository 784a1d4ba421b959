import { StoreError } from '../errors/index.js';

/** A file-system failure as a `StoreError` that names what was being done and where. */
export function ioError({
  action,
  path,
  cause,
}: {
  readonly action: string;
  readonly path: string;
  readonly cause: unknown;
}): StoreError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new StoreError(`Cannot ${action} ${path}: ${detail}`, { code: 'io', cause });
}

export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}
