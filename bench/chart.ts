import type { BenchReport } from './report';
import { percentile } from './stats';

/**
 * The latency chart of a run, as a self-contained SVG (no library): cold starts as one dot per
 * process with the interquartile box and the median, warm invocations and end-to-end requests as
 * p50 bars with whiskers to p90 and p99. Service and baseline share one axis per panel.
 */

const WIDTH = 960;
const LABEL_WIDTH = 230;
const PLOT_LEFT = LABEL_WIDTH + 10;
const PLOT_RIGHT = WIDTH - 80;
const ROW_HEIGHT = 18;
const COLOURS = {
  service: '#d9622b',
  baseline: '#2b6cb0',
  variant: '#e8a27f',
  variantBaseline: '#8fb0d8',
} as const;

type Colour = keyof typeof COLOURS;

interface DistributionRow {
  readonly label: string;
  readonly colour: Colour;
  readonly samples: readonly number[];
}

interface PercentileRow {
  readonly label: string;
  readonly colour: Colour;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const niceMax = (value: number): number => {
  const magnitude = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 2.5, 5, 10].find((candidate) => candidate * magnitude >= value) ?? 10;
  return step * magnitude;
};

const axis = (top: number, bottom: number, max: number, x: (value: number) => number): string[] => {
  const ticks = 5;
  return Array.from({ length: ticks + 1 }, (_, index) => {
    const value = (max / ticks) * index;
    const left = x(value);
    return [
      `<line x1="${left}" y1="${top}" x2="${left}" y2="${bottom}" stroke="#e2e2e2"/>`,
      `<text x="${left}" y="${bottom + 14}" text-anchor="middle" class="tick">${Number(value.toPrecision(3))}</text>`,
    ].join('');
  });
};

/** A panel: a title, an axis in ms, and one row per series; returns its SVG and height. */
const panel = (
  top: number,
  title: string,
  rows: readonly (DistributionRow | PercentileRow | 'gap')[],
): { svg: string; height: number } => {
  const values = rows.flatMap((row) =>
    row === 'gap' ? [] : 'samples' in row ? [...row.samples] : [row.p99],
  );
  const max = niceMax(Math.max(...values, 0.001));
  const x = (value: number) => Math.round((PLOT_LEFT + ((PLOT_RIGHT - PLOT_LEFT) * value) / max) * 10) / 10;
  const parts: string[] = [`<text x="10" y="${top + 14}" class="title">${escapeXml(title)}</text>`];
  let y = top + 28;
  const plotTop = y;
  const body: string[] = [];
  for (const row of rows) {
    if (row === 'gap') {
      y += ROW_HEIGHT / 2;
      continue;
    }
    const middle = y + ROW_HEIGHT / 2;
    const colour = COLOURS[row.colour];
    body.push(
      `<text x="${LABEL_WIDTH}" y="${middle + 4}" text-anchor="end" class="label">${escapeXml(row.label)}</text>`,
    );
    if ('samples' in row) {
      const sorted = [...row.samples].sort((a, b) => a - b);
      const [q1, q2, q3] = [25, 50, 75].map((p) => percentile(sorted, p)) as [number, number, number];
      body.push(
        `<line x1="${x(sorted[0] ?? 0)}" y1="${middle}" x2="${x(sorted[sorted.length - 1] ?? 0)}" y2="${middle}" stroke="${colour}" stroke-opacity="0.5"/>`,
        `<rect x="${x(q1)}" y="${y + 3}" width="${Math.max(1, x(q3) - x(q1))}" height="${ROW_HEIGHT - 6}" fill="${colour}" fill-opacity="0.18" stroke="${colour}"/>`,
        ...sorted.map(
          (value, index) =>
            `<circle cx="${x(value).toFixed(1)}" cy="${(middle + ((index % 3) - 1) * 3).toFixed(1)}" r="2" fill="${colour}" fill-opacity="0.7"/>`,
        ),
        `<line x1="${x(q2)}" y1="${y + 1}" x2="${x(q2)}" y2="${y + ROW_HEIGHT - 1}" stroke="#111" stroke-width="2"/>`,
        `<text x="${PLOT_RIGHT + 4}" y="${middle + 4}" class="value">${q2.toFixed(0)}</text>`,
      );
    } else {
      body.push(
        `<rect x="${PLOT_LEFT}" y="${y + 3}" width="${Math.max(1, x(row.p50) - PLOT_LEFT)}" height="${ROW_HEIGHT - 6}" fill="${colour}" fill-opacity="0.8"/>`,
        `<line x1="${x(row.p50)}" y1="${middle}" x2="${x(row.p99)}" y2="${middle}" stroke="${colour}"/>`,
        `<line x1="${x(row.p90)}" y1="${y + 5}" x2="${x(row.p90)}" y2="${y + ROW_HEIGHT - 5}" stroke="${colour}"/>`,
        `<line x1="${x(row.p99)}" y1="${y + 3}" x2="${x(row.p99)}" y2="${y + ROW_HEIGHT - 3}" stroke="${colour}" stroke-width="2"/>`,
        `<text x="${x(row.p99) + 4}" y="${middle + 4}" class="value">${row.p50.toFixed(2)} / ${row.p99.toFixed(1)}</text>`,
      );
    }
    y += ROW_HEIGHT;
  }
  parts.push(...axis(plotTop, y, max, x), ...body);
  parts.push(`<text x="${PLOT_RIGHT}" y="${y + 28}" text-anchor="end" class="tick">ms</text>`);
  return { svg: parts.join('\n'), height: y + 36 - top };
};

export const renderChart = (report: BenchReport): string => {
  const cold = report.coldStarts.flatMap((row, index): (DistributionRow | 'gap')[] => [
    ...(index > 0 ? ['gap' as const] : []),
    { label: `${row.name} service`, colour: 'service', samples: row.service.totalMs },
    { label: `${row.name} baseline`, colour: 'baseline', samples: row.baseline.totalMs },
    ...(row.withoutSourceMaps
      ? [
          {
            label: `${row.name} service, no source maps`,
            colour: 'variant' as const,
            samples: row.withoutSourceMaps.service.totalMs,
          },
          {
            label: `${row.name} baseline, no source maps`,
            colour: 'variantBaseline' as const,
            samples: row.withoutSourceMaps.baseline.totalMs,
          },
        ]
      : []),
  ]);
  const warm = report.warm.flatMap((row, index): (PercentileRow | 'gap')[] => [
    ...(index > 0 ? ['gap' as const] : []),
    { label: `${row.name} service`, colour: 'service', ...row.service },
    { label: `${row.name} baseline`, colour: 'baseline', ...row.baseline },
  ]);
  const endToEnd = report.endToEnd.map(
    (row): PercentileRow => ({ label: row.request, colour: 'service', ...row.latency }),
  );
  const panels: { svg: string; height: number }[] = [];
  let top = 50;
  for (const [title, rows] of [
    [
      `Cold start: load bundle + first invocation (${report.settings.coldRuns} processes each; box: quartiles, bar: median)`,
      cold,
    ],
    [
      `Warm invocation in process (${report.settings.warmIterations} each): bar p50, tick p90, whisker to p99`,
      warm,
    ],
    ['End to end through the local server (autocannon): bar p50, tick p90, whisker to p99', endToEnd],
  ] as const) {
    const drawn = panel(top, title, rows);
    panels.push(drawn);
    top += drawn.height + 10;
  }
  const legend = (['service', 'baseline', 'variant', 'variantBaseline'] as const)
    .map(
      (colour, index) =>
        `<rect x="${PLOT_LEFT + index * 185}" y="30" width="12" height="12" fill="${COLOURS[colour]}"/><text x="${PLOT_LEFT + index * 185 + 16}" y="40" class="label">${{ service: 'service (stack bundle)', baseline: 'baseline (same calls)', variant: 'service, no source maps', variantBaseline: 'baseline, no source maps' }[colour]}</text>`,
    )
    .join('');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${top}" viewBox="0 0 ${WIDTH} ${top}" font-family="system-ui, sans-serif">`,
    '<title>Pet store latency: cold start, warm invocation and end to end, service against baseline</title>',
    '<style>.title{font-size:14px;font-weight:600}.label{font-size:11px}.tick{font-size:10px;fill:#666}.value{font-size:10px;fill:#333}</style>',
    `<rect width="${WIDTH}" height="${top}" fill="#fff"/>`,
    `<text x="10" y="20" class="title">Pet store latency, ${escapeXml(report.date.slice(0, 10))}, ${escapeXml(report.machine.cpu)} × ${report.machine.cores}, Node ${escapeXml(report.machine.node)}</text>`,
    legend,
    ...panels.map((drawn) => drawn.svg),
    '</svg>',
    '',
  ].join('\n');
};
