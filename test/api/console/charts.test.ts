/**
 * The console's SVG charts (api/console/charts.ts): one bar per bucket stacked by outcome, its
 * heights in proportion on an axis that reaches the busiest bucket, its figures in a tooltip and
 * data attributes; latency lines broken where a bucket has no attempt; the image labelled by its
 * own title and description; every text escaped; the summary's totals, busiest bucket and
 * window percentiles.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  countsChart,
  duration,
  latencyChart,
  legend,
  niceTop,
  seriesSummary,
  type ChartSeries,
} from '../../../api/console/charts.ts';

const HOUR = 3_600_000;
const FROM = Date.parse('2026-03-09T15:00:00Z');

/** A day series with the given figures at bucket indexes, the rest empty. */
function daySeries(
  filled: Record<number, { done?: number; failed?: number; dead?: number; p50?: number; p95?: number }>,
): ChartSeries {
  const buckets = Array.from({ length: 24 }, (_, index) => {
    const f = filled[index] ?? {};
    const [done, failed, dead] = [f.done ?? 0, f.failed ?? 0, f.dead ?? 0];
    return {
      start: new Date(FROM + index * HOUR).toISOString(),
      done,
      failed,
      dead,
      attempts: done + failed + dead,
      p50Ms: f.p50 ?? null,
      p95Ms: f.p95 ?? null,
    };
  });
  const sum = (key: 'done' | 'failed' | 'dead') => buckets.reduce((total, b) => total + b[key], 0);
  return {
    window: 'DAY',
    stepSeconds: 3600,
    from: new Date(FROM).toISOString(),
    until: new Date(FROM + 24 * HOUR).toISOString(),
    buckets,
    totals: {
      done: sum('done'),
      failed: sum('failed'),
      dead: sum('dead'),
      attempts: sum('done') + sum('failed') + sum('dead'),
      p50Ms: 12,
      p95Ms: 340,
    },
  };
}

/** The rects of the bar of bucket `index`: [fill, height]. */
function bar(svg: string, index: number): { data: Record<string, string>; rects: [string, number][] } {
  const groups = [...svg.matchAll(/<g class="bar" ([^>]*)>(.*?)<\/g>/g)];
  const [, attributes, inner] = groups[index];
  const data = Object.fromEntries([...attributes.matchAll(/data-(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
  const rects = [...inner.matchAll(/<rect [^>]*height="([\d.]+)" fill="(#[0-9a-f]+)"/g)].map(
    (m) => [m[2], Number(m[1])] as [string, number],
  );
  return { data, rects };
}

describe('console charts', () => {
  it('one bar per bucket, stacked done, failed attempts, dead, in proportion to the busiest bucket', () => {
    const svg = countsChart(daySeries({ 3: { done: 6, failed: 3, dead: 1 }, 10: { done: 5 } }), 'c');
    assert.equal([...svg.matchAll(/<g class="bar"/g)].length, 24);
    const busiest = bar(svg, 3);
    assert.deepEqual(busiest.data, { start: '2026-03-09T18:00:00.000Z', done: '6', failed: '3', dead: '1' });
    assert.deepEqual(
      busiest.rects.map(([fill]) => fill),
      ['#1a7f37', '#b35900', '#b91c1c'],
    );
    const [done, failed, dead] = busiest.rects.map(([, height]) => height);
    assert.ok(Math.abs(done / failed - 2) < 0.05 && Math.abs(failed / dead - 3) < 0.1, `${done} ${failed} ${dead}`);
    const half = bar(svg, 10).rects[0][1];
    assert.ok(Math.abs(half / (done + failed + dead) - 0.5) < 0.02, 'a bucket of 5 against the axis top of 10');
    assert.deepEqual(bar(svg, 0).rects, [], 'an empty bucket draws nothing');
    assert.match(svg, /<title>18:00–19:00 UTC: 6 done, 3 failed attempts, 1 dead<\/title>/);
  });

  it('the image is labelled by its own title and description, which give the totals', () => {
    const svg = countsChart(daySeries({ 0: { done: 2, dead: 1 } }), 'chart-x');
    assert.match(svg, /^<svg [^>]*role="img" aria-labelledby="chart-x-title chart-x-desc"/);
    assert.match(svg, /<title id="chart-x-title">Attempts per hour by outcome<\/title>/);
    assert.match(
      svg,
      /<desc id="chart-x-desc">2 done, 0 failed attempts and 1 dead in the 24 hours up to 15:00 UTC; the axis goes up to 5 attempts\./,
    );
    assert.doesNotMatch(svg, /style=/, 'no style attribute: the CSP allows none');
  });

  it('latency: a p50 and a p95 line through the buckets with attempts, broken at a bucket without', () => {
    const svg = latencyChart(
      daySeries({ 1: { done: 1, p50: 10, p95: 20 }, 2: { done: 1, p50: 30, p95: 90 }, 5: { done: 1, p50: 5, p95: 7 } }),
      'l',
    );
    const paths = [...svg.matchAll(/<g class="latency" data-line="(p\d+)"><path d="([^"]+)"/g)];
    assert.deepEqual(
      paths.map((m) => m[1]),
      ['p50', 'p95'],
    );
    for (const [, , d] of paths) assert.deepEqual(d.match(/[ML]/g), ['M', 'L', 'M'], d);
    assert.equal([...svg.matchAll(/<circle /g)].length, 6);
    assert.match(svg, /p95 90 ms<\/title>/);
    assert.match(
      svg,
      /<desc id="l-desc">Over the window, p50 12 ms and p95 340 ms; the axis goes up to 100 ms\.<\/desc>/,
    );
  });

  it('an empty series draws axes and no bar or line', () => {
    const series = daySeries({});
    assert.deepEqual(bar(countsChart(series, 'e'), 5).rects, []);
    assert.doesNotMatch(latencyChart(series, 'e'), /<path|<circle/);
    assert.equal(seriesSummary(series).peak, null);
  });

  it('text in the markup is escaped', () => {
    const series = daySeries({ 0: { done: 1 } });
    series.buckets[0].start = '2026-03-09T15:00:00Z';
    const svg = countsChart(series, 'a"b<c');
    assert.doesNotMatch(svg, /a"b<c/);
    assert.match(svg, /a&quot;b&lt;c-title/);
  });

  it('the summary: totals, the busiest bucket (the first of equals), the window', () => {
    const summary = seriesSummary(daySeries({ 2: { done: 4 }, 7: { failed: 3, dead: 2 }, 9: { done: 5 } }));
    assert.deepEqual(summary.peak, { span: '22:00–23:00 UTC', attempts: 5 });
    assert.equal(summary.unit, 'hour');
    assert.deepEqual([summary.totals.done, summary.totals.failed, summary.totals.dead], [9, 3, 2]);
  });

  it('the time axis says its times are UTC, on both charts', () => {
    for (const svg of [countsChart(daySeries({}), 'c'), latencyChart(daySeries({}), 'l')]) {
      const labels = [...svg.matchAll(/<text [^>]*y="212"[^>]*>([^<]*)<\/text>/g)].map((match) => match[1]);
      // the first bucket starts at 15:00 UTC: the labels are UTC clock times, and the axis says so once
      assert.deepEqual(labels, ['15:00', '21:00', '03:00', '09:00', 'UTC']);
    }
  });

  it('axis tops, durations and the legend', () => {
    assert.deepEqual([0, 1, 3, 7, 10, 11, 240, 5001].map(niceTop), [1, 1, 5, 10, 10, 20, 500, 10000]);
    assert.deepEqual([null, 12.34, 999, 1250].map(duration), ['-', '12 ms', '999 ms', '1.3 s']);
    assert.match(legend('counts'), /aria-hidden="true".*done.*failed attempts.*dead/s);
  });
});
