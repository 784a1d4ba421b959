import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Refused a path outside the working directory; the message is what the model reads. */
export class WorkspaceEscapeError extends Error {
  constructor(path: string) {
    super(`"${path}" is outside the working directory; use a path relative to it`);
    this.name = 'WorkspaceEscapeError';
  }
}

/**
 * The real path of `path` inside `root`, or a thrown `WorkspaceEscapeError`. Symlinks are
 * resolved before the check, so a link pointing out of the directory is refused too.
 */
export async function resolveInWorkspace({
  root,
  path,
}: {
  root: string;
  path: string;
}): Promise<string> {
  const candidate = resolve(root, path);
  if (!isInside(root, candidate)) throw new WorkspaceEscapeError(path);
  const real = await realpath(candidate);
  if (!isInside(root, real)) throw new WorkspaceEscapeError(path);
  return real;
}

/**
 * Where a file may be written inside `root`: the real path of the file when it exists, else of
 * its nearest existing directory joined with the rest. Either way the real part must be inside
 * `root`, so neither a link nor a missing directory lets a write leave it.
 */
export async function resolveWritableInWorkspace({
  root,
  path,
}: {
  root: string;
  path: string;
}): Promise<string> {
  const candidate = resolve(root, path);
  if (!isInside(root, candidate) || candidate === root) throw new WorkspaceEscapeError(path);
  let existing = candidate;
  const missing: string[] = [];
  for (;;) {
    const real = await realpath(existing).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (real !== undefined) {
      if (!isInside(root, real)) throw new WorkspaceEscapeError(path);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    }
    missing.push(basename(existing));
    existing = dirname(existing);
  }
}

/** Whether `path` is `root` or below it; both must be absolute and already real. */
export function isInside(root: string, path: string): boolean {
  const fromRoot = relative(root, path);
  return (
    fromRoot === '' ||
    (!fromRoot.startsWith(`..${sep}`) && fromRoot !== '..' && !isAbsolute(fromRoot))
  );
}

/** A path as the model sees it: relative to the root, with forward slashes. */
export function displayPath(root: string, path: string): string {
  const fromRoot = relative(root, path);
  return fromRoot === '' ? '.' : fromRoot.split(sep).join('/');
}
