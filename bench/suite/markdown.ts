/** One markdown table; numeric columns (named in `right`) are right-aligned. */
export function markdownTable({
  header,
  rows,
  right = [],
}: {
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
  readonly right?: readonly number[];
}): string {
  const escapeCell = (cell: string) => cell.replaceAll('|', '\\|');
  const divider = header.map((_, index) => (right.includes(index) ? '---:' : '---'));
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(header.map(escapeCell)),
    line(divider),
    ...rows.map((row) => line(row.map(escapeCell))),
  ].join('\n');
}

/** A titled section: heading, a short explanation, then the table or text. */
export interface ReportSection {
  readonly title: string;
  readonly intro: string;
  readonly body: string;
  readonly notes?: readonly string[];
}

export function renderSection(section: ReportSection): string {
  const notes = (section.notes ?? []).map((note) => `- ${note}`).join('\n');
  return [`## ${section.title}`, section.intro, section.body, notes]
    .filter((part) => part.trim() !== '')
    .join('\n\n');
}
