import { randomBytes } from 'node:crypto';
import { link, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CommandError } from '../command-error.js';

/**
 * Writes a whole file or nothing: the text goes to a temporary file beside the target, is
 * flushed to disk, and then renamed over it, so a crash or a full disk never leaves a
 * half-written result or destroys the previous file. With `overwrite: false` an existing file
 * is left alone (the temporary file is linked into place, which fails if the name is taken,
 * so there is no window between a check and the write). Errors are `CommandError`s that name
 * `path`, never the hidden temporary file.
 */
export async function writeFileAtomic({
  path,
  text,
  overwrite = true,
}: {
  path: string;
  text: string;
  overwrite?: boolean;
}): Promise<void> {
  const temporary = join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  try {
    const handle = await open(temporary, 'wx');
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (overwrite) await rename(temporary, path);
    else await link(temporary, path);
  } catch (error) {
    throw writeError(path, error);
  } finally {
    await rm(temporary, { force: true });
  }
}

/** Why `path` could not be written, in words about `path` rather than the temporary file. */
function writeError(path: string, error: unknown): CommandError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EEXIST') {
    return new CommandError(`${path} already exists`, { code: 'output_exists', cause: error });
  }
  const reasons: Record<string, string> = {
    ENOENT: 'its directory does not exist',
    ENOTDIR: 'a part of its directory path is not a directory',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'the file system is read-only',
    ENOSPC: 'no space left on the device',
    EDQUOT: 'the disk quota is exceeded',
    EISDIR: 'it is a directory',
    ENAMETOOLONG: 'the name is too long',
  };
  const reason =
    (code === undefined ? undefined : reasons[code]) ??
    (code === undefined ? String((error as Error).message) : `${code}`);
  return new CommandError(`Cannot write ${path}: ${reason}`, {
    code: 'output_unwritable',
    cause: error,
  });
}
