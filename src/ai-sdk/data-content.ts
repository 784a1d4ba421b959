import type { DataSpelling, JsonValue } from './shape.js';

const TAG = '$loopkeeper:data';

/** Binary and URL values as JSON-safe text, with how they were spelled. */
export function encodeData(value: unknown): { spelling: DataSpelling; text: string } | undefined {
  if (typeof value === 'string') return { spelling: 'string', text: value };
  if (value instanceof URL) return { spelling: 'url', text: value.href };
  if (Buffer.isBuffer(value)) return { spelling: 'buffer', text: value.toString('base64') };
  if (value instanceof Uint8Array) {
    return { spelling: 'bytes', text: Buffer.from(value).toString('base64') };
  }
  if (value instanceof ArrayBuffer) {
    return { spelling: 'arraybuffer', text: Buffer.from(value).toString('base64') };
  }
  return undefined;
}

/** The value `encodeData` read, as the same JavaScript type. */
export function decodeData(spelling: DataSpelling, text: string): unknown {
  switch (spelling) {
    case 'string':
    case 'base64':
      return text;
    case 'url':
      return new URL(text);
    case 'buffer':
      return Buffer.from(text, 'base64');
    case 'bytes':
      return new Uint8Array(Buffer.from(text, 'base64'));
    case 'arraybuffer': {
      const bytes = Buffer.from(text, 'base64');
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    }
  }
}

/** A deep copy that is JSON-safe: binary data and URLs become tagged objects. */
export function toJson(value: unknown): JsonValue {
  if (value === null || typeof value !== 'object') return value as JsonValue;
  const encoded = encodeData(value);
  if (encoded !== undefined) return { [TAG]: encoded.spelling, value: encoded.text };
  if (Array.isArray(value)) return value.map(toJson);
  // fromEntries defines own keys, so a key named __proto__ stays data.
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, entry]) =>
      entry === undefined ? [] : [[key, toJson(entry)]],
    ),
  );
}

/** The inverse of `toJson`. */
export function fromJson(value: JsonValue): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(fromJson);
  const record = value as Record<string, JsonValue>;
  const spelling = record[TAG];
  if (typeof spelling === 'string' && typeof record['value'] === 'string') {
    return decodeData(spelling as DataSpelling, record['value']);
  }
  return Object.fromEntries(Object.entries(record).map(([key, entry]) => [key, fromJson(entry)]));
}

/** An image's data as the URL an item holds: a data URL for bytes, otherwise the string. */
export function imageUrl(
  spelling: DataSpelling,
  text: string,
  mediaType: string | undefined,
): string {
  if (spelling === 'string' || spelling === 'url') return text;
  return `data:${mediaType ?? 'application/octet-stream'};base64,${text}`;
}

/** The inverse of `imageUrl`. */
export function imageText(spelling: DataSpelling, url: string): string {
  if (spelling === 'string' || spelling === 'url') return url;
  const comma = url.indexOf(',');
  return comma === -1 ? url : url.slice(comma + 1);
}
