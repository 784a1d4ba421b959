import { sealLine } from '../../src/log/line-checksum.js';

/**
 * A stored line edited by a test, given a fresh checksum, so the edit reaches the checks behind
 * the checksum (seq, version, type) instead of being refused as damage.
 */
export function reseal(line: string): string {
  const sealAt = line.lastIndexOf(',"crc":"');
  return sealLine(`${sealAt === -1 ? line.slice(0, -1) : line.slice(0, sealAt)}}`);
}
