import { describe, expect, it } from 'vitest';
import { createProgressLine } from '../../src/cli/output/progress-line.js';
import { createStyle } from '../../src/cli/output/style.js';
import { renderTable } from '../../src/cli/output/table.js';

function memoryStream(isTTY: boolean, columns?: number) {
  const chunks: string[] = [];
  return {
    chunks,
    stream: {
      isTTY,
      ...(columns === undefined ? {} : { columns }),
      write: (text: string) => chunks.push(text),
    },
  };
}

describe('createStyle', () => {
  it('colours only a terminal, and never when NO_COLOR is set to a non-empty value', () => {
    const terminal = memoryStream(true).stream;
    const pipe = memoryStream(false).stream;
    expect(createStyle({ stream: terminal, env: {} }).red('x')).toBe('\u001b[31mx\u001b[39m');
    expect(createStyle({ stream: terminal, env: { NO_COLOR: '' } }).enabled).toBe(true);
    expect(createStyle({ stream: terminal, env: { NO_COLOR: '1' } }).red('x')).toBe('x');
    expect(createStyle({ stream: pipe, env: {} }).bold('x')).toBe('x');
  });
});

describe('createProgressLine', () => {
  it('rewrites one line on a terminal, padding over a longer previous text', () => {
    const { stream, chunks } = memoryStream(true, 80);
    const line = createProgressLine({ stream });
    line.update(1, 'step 1 long text');
    line.update(2, 'step 2');
    line.finish(2, 'step 2');
    expect(chunks).toEqual([
      '\rstep 1 long text',
      `\r${'step 2'.padEnd(16)}`,
      `\r${'step 2'.padEnd(6)}`,
      '\n',
    ]);
  });

  it('prints a plain line every N steps when not a terminal, and the last state once', () => {
    const { stream, chunks } = memoryStream(false);
    const line = createProgressLine({ stream, everySteps: 10 });
    for (let step = 1; step <= 25; step += 1) line.update(step, `step ${step}`);
    line.finish(25, 'step 25');
    expect(chunks).toEqual(['step 1\n', 'step 11\n', 'step 21\n', 'step 25\n']);
  });
});

describe('renderTable', () => {
  it('pads columns to their widest cell and aligns numbers right', () => {
    expect(
      renderTable({
        columns: [{ header: 'name' }, { header: 'n', align: 'right' }],
        rows: [
          ['a', '1'],
          ['longer', '1,000'],
        ],
      }),
    ).toBe(['  name        n', '  ------  -----', '  a           1', '  longer  1,000'].join('\n'));
  });
});
