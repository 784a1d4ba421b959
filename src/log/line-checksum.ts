import * as zlib from 'node:zlib';

/**
 * Every stored line (schema version 2 on) ends with `,"crc":"<8 hex digits>"}`: the CRC-32 of
 * the line's UTF-8 bytes before that field. CRC-32 catches every change of up to 32 bits in a
 * row, so any single damaged byte of a complete line is found, and a line is checked on its raw
 * bytes without re-serializing it.
 */
const SEAL_PREFIX = Buffer.from(',"crc":"', 'latin1');
const SEAL_BYTES = SEAL_PREFIX.length + 8 + 2;
const HEX = /^[0-9a-f]{8}$/;

/** The JSON text of a record (an object) with its checksum field added at the end. */
export function sealLine(json: string): string {
  const body = json.slice(0, -1);
  return `${body},"crc":"${hex(crc32(Buffer.from(body, 'utf8')))}"}`;
}

/**
 * What a line's checksum says: `absent` when the line does not end with a well-formed seal
 * (a version 1 line, or a damaged seal), else `valid` or `mismatch`.
 */
export function checkSeal(line: Uint8Array): 'valid' | 'mismatch' | 'absent' {
  if (line.byteLength <= SEAL_BYTES) return 'absent';
  const bytes = Buffer.from(line.buffer, line.byteOffset, line.byteLength);
  const sealStart = bytes.length - SEAL_BYTES;
  const digits = bytes.toString('latin1', sealStart + SEAL_PREFIX.length, bytes.length - 2);
  if (
    !bytes.subarray(sealStart, sealStart + SEAL_PREFIX.length).equals(SEAL_PREFIX) ||
    bytes.toString('latin1', bytes.length - 2) !== '"}' ||
    !HEX.test(digits)
  ) {
    return 'absent';
  }
  return hex(crc32(bytes.subarray(0, sealStart))) === digits ? 'valid' : 'mismatch';
}

function hex(value: number): string {
  return value.toString(16).padStart(8, '0');
}

// zlib.crc32 arrived in Node 20.15; earlier 20.x releases get the same CRC from a table.
const nativeCrc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;
const crc32: (data: Uint8Array) => number = nativeCrc32 ?? tableCrc32;
let table: Uint32Array | undefined;

/** CRC-32 (IEEE, as zlib computes it) from a lookup table. */
export function tableCrc32(data: Uint8Array): number {
  table ??= buildTable();
  let crc = 0xffffffff;
  for (const byte of data) crc = (table[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function buildTable(): Uint32Array {
  const result = new Uint32Array(256);
  for (let index = 0; index < 256; index += 1) {
    let value = index;
    for (let bit = 0; bit < 8; bit += 1) {
      value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
    }
    result[index] = value >>> 0;
  }
  return result;
}
