/** One line of the chart: per-step milliseconds (y) against tool calls so far (x). */
export interface ChartSeries {
  readonly name: string;
  readonly points: readonly { readonly x: number; readonly y: number }[];
}

const COLORS = ['#1f6feb', '#7aa7f0', '#d1242f', '#8250df', '#bf8700', '#1a7f37', '#57606a'];
const DASHED = new Set(['floor', 'loopkeeper driver']);

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function tickLabel(milliseconds: number): string {
  if (milliseconds >= 1000) return `${milliseconds / 1000} s`;
  if (milliseconds >= 1) return `${milliseconds} ms`;
  if (milliseconds >= 0.001) return `${Math.round(milliseconds * 1000)} µs`;
  return `${Math.round(milliseconds * 1_000_000)} ns`;
}

/**
 * A small line chart written directly as SVG (no chart library): log-scale time, linear
 * session length, one colour per contender and a legend on the right.
 */
export function perStepChartSvg({
  series,
  title,
}: {
  readonly series: readonly ChartSeries[];
  readonly title: string;
}): string {
  const width = 860;
  const height = 420;
  const plot = { left: 70, top: 40, right: 560, bottom: 360 };
  const finite = series.flatMap((line) =>
    line.points.filter((point) => Number.isFinite(point.y) && point.y > 0),
  );
  const maxX = Math.max(1, ...finite.map((point) => point.x));
  const lowest = Math.floor(Math.log10(Math.min(...finite.map((point) => point.y))));
  const highest = Math.ceil(Math.log10(Math.max(...finite.map((point) => point.y))));
  const scaleX = (x: number) => plot.left + (x / maxX) * (plot.right - plot.left);
  const scaleY = (y: number) =>
    plot.bottom -
    ((Math.log10(y) - lowest) / Math.max(1, highest - lowest)) * (plot.bottom - plot.top);

  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${plot.left}" y="22" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
  );
  for (let exponent = lowest; exponent <= highest; exponent += 1) {
    const value = 10 ** exponent;
    const y = scaleY(value).toFixed(1);
    parts.push(
      `<line x1="${plot.left}" y1="${y}" x2="${plot.right}" y2="${y}" stroke="#d0d7de" stroke-width="1"/>`,
      `<text x="${plot.left - 8}" y="${y}" text-anchor="end" dominant-baseline="middle" fill="#57606a">${tickLabel(value)}</text>`,
    );
  }
  const xStep =
    10 ** Math.floor(Math.log10(maxX)) / (maxX / 10 ** Math.floor(Math.log10(maxX)) < 3 ? 2 : 1);
  for (let tick = 0; tick <= maxX; tick += xStep) {
    const x = scaleX(tick).toFixed(1);
    parts.push(
      `<line x1="${x}" y1="${plot.bottom}" x2="${x}" y2="${plot.bottom + 5}" stroke="#57606a"/>`,
      `<text x="${x}" y="${plot.bottom + 18}" text-anchor="middle" fill="#57606a">${tick.toLocaleString('en-US')}</text>`,
    );
  }
  parts.push(
    `<line x1="${plot.left}" y1="${plot.bottom}" x2="${plot.right}" y2="${plot.bottom}" stroke="#57606a"/>`,
    `<line x1="${plot.left}" y1="${plot.top}" x2="${plot.left}" y2="${plot.bottom}" stroke="#57606a"/>`,
    `<text x="${(plot.left + plot.right) / 2}" y="${plot.bottom + 40}" text-anchor="middle">tool calls in the session so far</text>`,
    `<text transform="translate(18 ${(plot.top + plot.bottom) / 2}) rotate(-90)" text-anchor="middle">time per step (log scale)</text>`,
  );
  series.forEach((line, index) => {
    const color = COLORS[index % COLORS.length] as string;
    const points = line.points.filter((point) => Number.isFinite(point.y) && point.y > 0);
    const path = points
      .map(
        (point, position) =>
          `${position === 0 ? 'M' : 'L'}${scaleX(point.x).toFixed(1)} ${scaleY(point.y).toFixed(1)}`,
      )
      .join(' ');
    const dash = DASHED.has(line.name) ? ' stroke-dasharray="6 4"' : '';
    const strokeWidth = line.name === 'loopkeeper' ? 3 : 2;
    parts.push(
      `<path d="${path}" fill="none" stroke="${color}" stroke-width="${strokeWidth}"${dash}/>`,
    );
    for (const point of points) {
      parts.push(
        `<circle cx="${scaleX(point.x).toFixed(1)}" cy="${scaleY(point.y).toFixed(1)}" r="2.5" fill="${color}"/>`,
      );
    }
    const legendY = plot.top + 10 + index * 22;
    parts.push(
      `<line x1="${plot.right + 24}" y1="${legendY}" x2="${plot.right + 52}" y2="${legendY}" stroke="${color}" stroke-width="${strokeWidth}"${dash}/>`,
      `<text x="${plot.right + 60}" y="${legendY}" dominant-baseline="middle">${escapeXml(line.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
