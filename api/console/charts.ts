/**
 * The console's delivery charts as SVG drawn on the server (no script, nothing to load, the
 * Content Security Policy untouched: colours are presentation attributes, never `style`): the
 * attempts of each bucket stacked by outcome, and the p50 and p95 of their durations as two lines.
 * Pure functions from a series (the GraphQL `WebhookDeliverySeries` the page object carries) to
 * markup and to the text summary shown beside each chart; every text in the markup is escaped.
 */
import type { SeriesFigures } from '../../shared/webhooks/deliveries/series.ts';

/** A bucket as the page object carries it (times as ISO text or Date). */
export interface ChartBucket extends SeriesFigures {
  start: string | Date;
}

export interface ChartSeries {
  window: string;
  stepSeconds: number;
  from: string | Date;
  until: string | Date;
  buckets: ChartBucket[];
  totals: SeriesFigures;
}

/** The outcomes stacked from the bottom up, with their colours (each 3:1 or more against white). */
export const OUTCOMES = [
  { key: 'done', label: 'done', colour: '#1a7f37' },
  { key: 'failed', label: 'failed attempts', colour: '#b35900' },
  { key: 'dead', label: 'dead', colour: '#b91c1c' },
] as const;

/** The latency lines. */
export const LATENCIES = [
  { key: 'p50Ms', label: 'p50', colour: '#0550ae', dash: '' },
  { key: 'p95Ms', label: 'p95', colour: '#6e40c9', dash: '6 3' },
] as const;

const WIDTH = 720;
const HEIGHT = 220;
const PLOT = { left: 56, right: 8, top: 12, bottom: 28 };

const xmlText = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char,
  );

const pad = (n: number) => String(n).padStart(2, '0');
/** `14:00` (UTC), the label of a bucket's start. */
export const clock = (value: string | Date) => {
  const date = new Date(value);
  return `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}`;
};
/** `14:00–15:00 UTC`: a bucket's span. */
export const span = (bucket: ChartBucket, stepSeconds: number) =>
  `${clock(bucket.start)}–${clock(new Date(new Date(bucket.start).getTime() + stepSeconds * 1000))} UTC`;

/** A duration in ms as people read it: `850 ms`, `1.2 s`; '-' for none. */
export const duration = (ms: number | null) =>
  ms === null ? '-' : ms < 1000 ? `${Math.round(ms)} ms` : `${(Math.round(ms / 100) / 10).toString()} s`;

/** The smallest 1, 2 or 5 times a power of ten at or above `value` (at least 1): the top of an axis. */
export function niceTop(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * power).find((top) => top >= value) ?? 10 * power;
}

const round = (n: number) => Math.round(n * 10) / 10;

/** What one bucket of the counts holds, in words (the bar's tooltip and the table's row). */
export const bucketText = (bucket: ChartBucket, stepSeconds: number) =>
  `${span(bucket, stepSeconds)}: ${bucket.done} done, ${bucket.failed} failed attempts, ${bucket.dead} dead`;

/** The text summary beside the charts: totals, the busiest bucket, p50/p95 over the window. */
export function seriesSummary(series: ChartSeries): {
  totals: ChartSeries['totals'];
  peak: { span: string; attempts: number } | null;
  unit: 'hour' | 'minute';
} {
  const peak = series.buckets.reduce<ChartBucket | null>(
    (best, bucket) => (bucket.attempts > 0 && (best === null || bucket.attempts > best.attempts) ? bucket : best),
    null,
  );
  return {
    totals: series.totals,
    peak: peak === null ? null : { span: span(peak, series.stepSeconds), attempts: peak.attempts },
    unit: series.stepSeconds >= 3600 ? 'hour' : 'minute',
  };
}

const geometry = (series: ChartSeries) => {
  const plotWidth = WIDTH - PLOT.left - PLOT.right;
  const plotHeight = HEIGHT - PLOT.top - PLOT.bottom;
  const slot = plotWidth / Math.max(series.buckets.length, 1);
  return { slot, plotHeight, x: (index: number) => PLOT.left + index * slot, base: HEIGHT - PLOT.bottom };
};

/**
 * The labels of the time axis: every sixth bucket (hours) or every tenth (minutes), and the first,
 * with the zone they are in at the axis's end (UTC: a reader would otherwise take them for local times).
 */
function timeAxis(series: ChartSeries, x: (index: number) => number, slot: number): string {
  const every = series.stepSeconds >= 3600 ? 6 : 10;
  const labels = series.buckets.map((bucket, index) =>
    index % every === 0
      ? `<text x="${round(x(index) + slot / 2)}" y="${HEIGHT - 8}" text-anchor="middle">${clock(bucket.start)}</text>`
      : '',
  );
  return `${labels.join('')}<text x="${WIDTH - PLOT.right}" y="${HEIGHT - 8}" text-anchor="end">UTC</text>`;
}

/** The frame every chart shares: its title and description, the value axis with its top, the time axis. */
function frame(
  name: string,
  title: string,
  description: string,
  top: string,
  series: ChartSeries,
  body: string,
): string {
  const { slot, x } = geometry(series);
  const id = xmlText(name);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title ${id}-desc" class="chart-svg" font-family="system-ui, sans-serif" font-size="12" fill="#1f2328">`,
    `<title id="${id}-title">${xmlText(title)}</title>`,
    `<desc id="${id}-desc">${xmlText(description)}</desc>`,
    `<line x1="${PLOT.left}" y1="${HEIGHT - PLOT.bottom}" x2="${WIDTH - PLOT.right}" y2="${HEIGHT - PLOT.bottom}" stroke="#57606a"/>`,
    `<line x1="${PLOT.left}" y1="${PLOT.top}" x2="${PLOT.left}" y2="${HEIGHT - PLOT.bottom}" stroke="#57606a"/>`,
    `<text x="${PLOT.left - 6}" y="${PLOT.top + 4}" text-anchor="end">${xmlText(top)}</text>`,
    `<text x="${PLOT.left - 6}" y="${HEIGHT - PLOT.bottom}" text-anchor="end">0</text>`,
    timeAxis(series, x, slot),
    body,
    '</svg>',
  ].join('');
}

/**
 * The attempts of each bucket as a bar stacked by outcome (done at the bottom, then failed
 * attempts, then dead), each bar a group with its figures as a tooltip (`<title>`) and as
 * `data-*` attributes. `id` makes the ids of its title and description unique in the page.
 */
export function countsChart(series: ChartSeries, id: string): string {
  const { slot, plotHeight, x, base } = geometry(series);
  const top = niceTop(Math.max(0, ...series.buckets.map((bucket) => bucket.attempts)));
  const scale = plotHeight / top;
  const bars = series.buckets
    .map((bucket, index) => {
      let y = base;
      const rects = OUTCOMES.map(({ key, colour }) => {
        const height = bucket[key] * scale;
        if (height <= 0) return '';
        y -= height;
        return `<rect x="${round(x(index) + slot * 0.1)}" y="${round(y)}" width="${round(slot * 0.8)}" height="${round(height)}" fill="${colour}"/>`;
      }).join('');
      return `<g class="bar" data-start="${xmlText(new Date(bucket.start).toISOString())}" data-done="${bucket.done}" data-failed="${bucket.failed}" data-dead="${bucket.dead}"><title>${xmlText(bucketText(bucket, series.stepSeconds))}</title>${rects}</g>`;
    })
    .join('');
  const { totals } = series;
  const per = series.stepSeconds >= 3600 ? 'hour' : 'minute';
  return frame(
    id,
    `Attempts per ${per} by outcome`,
    `${totals.done} done, ${totals.failed} failed attempts and ${totals.dead} dead in the ${series.buckets.length} ${per}s up to ${clock(series.until)} UTC; the axis goes up to ${top} attempt${top === 1 ? '' : 's'}.`,
    String(top),
    series,
    bars,
  );
}

/** The p50 and p95 of each bucket's attempt durations as two lines (broken where a bucket has no attempt). */
export function latencyChart(series: ChartSeries, id: string): string {
  const { slot, plotHeight, x, base } = geometry(series);
  const top = niceTop(Math.max(0, ...series.buckets.map((bucket) => bucket.p95Ms ?? 0)));
  const y = (ms: number) => round(base - (ms / top) * plotHeight);
  const lines = LATENCIES.map(({ key, colour, dash, label }) => {
    let path = '';
    let drawing = false;
    const points: string[] = [];
    series.buckets.forEach((bucket, index) => {
      const value = bucket[key];
      if (value === null) {
        drawing = false;
        return;
      }
      const px = round(x(index) + slot / 2);
      path += `${drawing ? 'L' : 'M'}${px} ${y(value)} `;
      drawing = true;
      points.push(
        `<circle cx="${px}" cy="${y(value)}" r="2.5" fill="${colour}"><title>${xmlText(`${span(bucket, series.stepSeconds)}: ${label} ${duration(value)}`)}</title></circle>`,
      );
    });
    const line = path
      ? `<path d="${path.trim()}" fill="none" stroke="${colour}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`
      : '';
    return `<g class="latency" data-line="${label}">${line}${points.join('')}</g>`;
  }).join('');
  const { totals } = series;
  const per = series.stepSeconds >= 3600 ? 'hour' : 'minute';
  return frame(
    id,
    `Attempt duration per ${per}, p50 and p95`,
    `Over the window, p50 ${duration(totals.p50Ms)} and p95 ${duration(totals.p95Ms)}; the axis goes up to ${duration(top)}.`,
    duration(top),
    series,
    lines,
  );
}

/** The key of a chart (HTML): a swatch of each colour (hidden from screen readers) and its name. */
export function legend(kind: 'counts' | 'latency'): string {
  const entries = kind === 'counts' ? OUTCOMES : LATENCIES;
  return `<ul class="legend">${entries
    .map(
      ({ label, colour }) =>
        `<li><svg width="12" height="12" aria-hidden="true" focusable="false"><rect width="12" height="12" fill="${colour}"/></svg> ${xmlText(label)}</li>`,
    )
    .join('')}</ul>`;
}
