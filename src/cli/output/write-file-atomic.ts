import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a whole file or nothing: the text goes to a temporary file beside the target, is
 * flushed to disk, and then renamed over it, so a crash or a full disk never leaves a
 * half-written result or destroys the previous file.
 */
export async function writeFileAtomic({
  path,
  text,
}: {
  path: string;
  text: string;
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
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
