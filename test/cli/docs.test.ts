import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { OVERVIEW } from '../../src/cli/overview.js';
import { packageRoot } from './support/cli-process.js';

/** Each `<!-- help: name -->` marker of docs/cli.md and the text block right under it. */
function helpBlocks(): Map<string, string> {
  const lines = readFileSync(join(packageRoot, 'docs', 'cli.md'), 'utf8').split('\n');
  const blocks = new Map<string, string>();
  lines.forEach((line, index) => {
    const marker = /^<!-- help: (\S+) -->$/.exec(line);
    if (marker === null) return;
    expect(lines[index + 1]).toBe('```text');
    const end = lines.indexOf('```', index + 2);
    blocks.set(marker[1] ?? '', lines.slice(index + 2, end).join('\n'));
  });
  return blocks;
}

describe('docs/cli.md', () => {
  it('shows the exact --help text of every command and of the overview', () => {
    const blocks = helpBlocks();
    expect([...blocks.keys()].sort()).toEqual(
      ['overview', ...COMMANDS.map((command) => command.name)].sort(),
    );
    expect(blocks.get('overview')).toBe(OVERVIEW);
    for (const command of COMMANDS)
      expect(blocks.get(command.name), command.name).toBe(command.help);
  });
});
