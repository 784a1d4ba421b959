import { constants } from 'node:fs';
import { type FileHandle, lstat, open } from 'node:fs/promises';
import { StoreError } from '../errors/index.js';
import { errorCode } from './io-error.js';

const { O_APPEND, O_CREAT, O_NOFOLLOW, O_RDONLY, O_WRONLY } = constants;

const FLAGS = {
  read: O_RDONLY,
  append: O_WRONLY | O_APPEND | O_CREAT,
} as const;

/**
 * Opens a file of the store's directory, refusing one that is a symbolic link with `StoreError`
 * (`symlink_refused`): a link planted there would send appends (or create a file) wherever it
 * points. Where the platform has `O_NOFOLLOW` the open itself refuses, so no link can be swapped
 * in between a check and the open; elsewhere (Windows) an `lstat` checks first. Other failures
 * are the raw fs error, for the caller to word.
 */
export async function openWithoutFollowing({
  path,
  mode,
}: {
  readonly path: string;
  readonly mode: keyof typeof FLAGS;
}): Promise<FileHandle> {
  if (O_NOFOLLOW === undefined) {
    if (await isSymbolicLink(path)) throw symlinkRefused(path);
    return open(path, FLAGS[mode], 0o666);
  }
  try {
    return await open(path, FLAGS[mode] | O_NOFOLLOW, 0o666);
  } catch (cause) {
    // Linux and macOS say ELOOP, FreeBSD EMLINK; either can have other reasons, so look.
    const code = errorCode(cause);
    if ((code === 'ELOOP' || code === 'EMLINK') && (await isSymbolicLink(path))) {
      throw symlinkRefused(path);
    }
    throw cause;
  }
}

async function isSymbolicLink(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink();
  } catch {
    return false;
  }
}

function symlinkRefused(path: string): StoreError {
  return new StoreError(
    `${path} is a symbolic link; the session store does not follow links inside its directory, so none can redirect what it reads or writes`,
    { code: 'symlink_refused' },
  );
}
