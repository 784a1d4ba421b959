/** One strategy on the cost-against-retention chart. */
export interface CostPoint {
  readonly name: string;
  /** Billed input tokens (uncached-token equivalents). */
  readonly cost: number;
  /** Mean share of the earlier work still visible, 0 to 1. */
  readonly retention: number;
}

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/**
 * A scatter plot written directly as SVG, like the per-step chart: billed tokens on x (linear,
 * from 0), retention on y (0 to 100%); up and to the left is better.
 */
export function costRetentionSvg({
  points,
  title,
}: {
  readonly points: readonly CostPoint[];
  readonly title: string;
}): string {
  // Room right of the plot for the legend, whose longest name is about 45 characters.
  const width = 920;
  const height = 440;
  const plot = { left: 70, top: 40, right: 600, bottom: 380 };
  const maxCost = Math.max(1, ...points.map((point) => point.cost)) * 1.05;
  const magnitude = 10 ** Math.floor(Math.log10(maxCost));
  const step = maxCost / magnitude > 5 ? magnitude : magnitude / 2;
  const scaleX = (cost: number) => plot.left + (cost / maxCost) * (plot.right - plot.left);
  const scaleY = (share: number) => plot.bottom - share * (plot.bottom - plot.top);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${plot.left}" y="22" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
  ];
  for (let share = 0; share <= 1.0001; share += 0.2) {
    const y = scaleY(share).toFixed(1);
    parts.push(
      `<line x1="${plot.left}" y1="${y}" x2="${plot.right}" y2="${y}" stroke="#d0d7de"/>`,
      `<text x="${plot.left - 8}" y="${y}" text-anchor="end" dominant-baseline="middle" fill="#57606a">${Math.round(share * 100)}%</text>`,
    );
  }
  for (let tick = 0; tick <= maxCost; tick += step) {
    const x = scaleX(tick).toFixed(1);
    parts.push(
      `<line x1="${x}" y1="${plot.bottom}" x2="${x}" y2="${plot.bottom + 5}" stroke="#57606a"/>`,
      `<text x="${x}" y="${plot.bottom + 18}" text-anchor="middle" fill="#57606a">${Math.round(tick / 1000).toLocaleString('en-US')}k</text>`,
    );
  }
  parts.push(
    `<line x1="${plot.left}" y1="${plot.bottom}" x2="${plot.right}" y2="${plot.bottom}" stroke="#57606a"/>`,
    `<line x1="${plot.left}" y1="${plot.top}" x2="${plot.left}" y2="${plot.bottom}" stroke="#57606a"/>`,
    `<text x="${(plot.left + plot.right) / 2}" y="${plot.bottom + 40}" text-anchor="middle">billed input tokens (cached prefix at 0.1×)</text>`,
    `<text transform="translate(18 ${(plot.top + plot.bottom) / 2}) rotate(-90)" text-anchor="middle">earlier work still visible (mean share)</text>`,
  );
  points.forEach((point, index) => {
    const isLoopkeeper = point.name.includes('loopkeeper');
    const color = isLoopkeeper ? '#1f6feb' : '#57606a';
    const x = scaleX(point.cost);
    const y = scaleY(point.retention);
    parts.push(
      `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${isLoopkeeper ? 6 : 5}" fill="${color}"/>`,
      `<text x="${(x + 9).toFixed(1)}" y="${(y + 4).toFixed(1)}" fill="${color}">${index + 1}</text>`,
      `<text x="${plot.right + 24}" y="${plot.top + 10 + index * 22}" fill="${color}" dominant-baseline="middle">${index + 1}. ${escapeXml(point.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
