import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TELEMETRY_EVENT_TYPES } from 'loopkeeper/runtime';
import { describe, expect, it } from 'vitest';
import { STREAM_PART_TYPES } from '../../src/runtime/turn-stream-part.js';

const document = readFileSync(
  join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'events.md'),
  'utf8',
);

describe('docs/events.md', () => {
  it.each(TELEMETRY_EVENT_TYPES)('documents %s under its own heading', (type) => {
    expect(document).toContain(`\n## ${type}\n`);
  });

  it('lists every streamTurn part with the event it comes from', () => {
    const table = document.slice(
      document.indexOf('\n## streamTurn parts\n'),
      document.indexOf('\n## OpenTelemetry spans\n'),
    );
    const rows = [...table.matchAll(/^\| `(\w+)` \| `(\w+)` \|$/gm)].map(([, part, event]) => [
      event,
      part,
    ]);
    expect(Object.fromEntries(rows)).toEqual(STREAM_PART_TYPES);
  });

  it.each(TELEMETRY_EVENT_TYPES)('maps %s to its span or span event', (type) => {
    const mapping = document.slice(document.indexOf('\n## OpenTelemetry spans\n'));
    expect(mapping).toContain(`\n| \`${type}\` | `);
  });
});
