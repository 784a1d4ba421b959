export interface TableColumn {
  readonly header: string;
  readonly align?: 'left' | 'right';
}

/**
 * A plain-text table: a header, a rule, then rows, columns padded to their widest cell. No
 * borders or escape codes, so it reads the same in a terminal, a log file and a test.
 */
export function renderTable({
  columns,
  rows,
  indent = '  ',
}: {
  columns: readonly TableColumn[];
  rows: readonly (readonly string[])[];
  indent?: string;
}): string {
  const widths = columns.map((column, index) =>
    Math.max(column.header.length, ...rows.map((row) => (row[index] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    indent +
    columns
      .map((column, index) => {
        const cell = cells[index] ?? '';
        const width = widths[index] ?? 0;
        return column.align === 'right' ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  const rule = indent + widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(columns.map((column) => column.header)), rule, ...rows.map(line)].join('\n');
}
