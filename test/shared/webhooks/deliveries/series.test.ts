/**
 * Deliveries over time (shared/webhooks/deliveries/series.ts): the grid of a window (aligned on
 * whole steps, the bucket holding `now` last), empty buckets at zero, the bounds (the first
 * bucket's start in, the window's end out), the outcomes and percentiles of a known history,
 * and the tenant scope (a tenant never counts another tenant's attempts, not even those made
 * through an endpoint that has since moved to it).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPERATOR, type Actor } from '../../../../shared/access/actor.ts';
import { tenantActor } from '../../../helpers/actors.ts';
import {
  deliverySeries,
  fillSeries,
  seriesGrid,
  type SeriesQuery,
} from '../../../../shared/webhooks/deliveries/series.ts';
import { updateEndpoint } from '../../../../shared/webhooks/endpoints/index.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { seedAttempts, type PastAttempt } from '../../../helpers/attempt-history.ts';
import { endpoint, harness } from '../../../worker/helpers.ts';

const HOUR = 3_600_000;
const MINUTE = 60_000;

const db = await createTestDatabase();
const h = harness(db);

describe('series grid and bucket filling', () => {
  it('the day window: 24 hourly buckets, the one holding now last, aligned on the hour', () => {
    const now = new Date('2026-03-10T14:37:12.345Z');
    const grid = seriesGrid('day', now);
    assert.equal(grid.until.toISOString(), '2026-03-10T15:00:00.000Z');
    assert.equal(grid.from.toISOString(), '2026-03-09T15:00:00.000Z');
    assert.equal(grid.count, 24);
    assert.equal(grid.stepMs, HOUR);
  });

  it('the hour window: 60 buckets of a minute; a now exactly on a boundary starts the last bucket', () => {
    const now = new Date('2026-03-10T14:37:00.000Z');
    const grid = seriesGrid('hour', now);
    assert.equal(grid.until.toISOString(), '2026-03-10T14:38:00.000Z');
    assert.equal(grid.from.toISOString(), '2026-03-10T13:38:00.000Z');
    assert.equal(grid.count, 60);
  });

  it('empty buckets are zero with no percentiles; rows fill their bucket; rows outside the grid are ignored', () => {
    const now = new Date('2026-03-10T14:37:12Z');
    const empty = fillSeries('day', now, []);
    assert.equal(empty.buckets.length, 24);
    assert.ok(empty.buckets.every((b) => b.attempts === 0 && b.done === 0 && b.p50Ms === null && b.p95Ms === null));
    assert.deepEqual(empty.totals, { done: 0, failed: 0, dead: 0, attempts: 0, p50Ms: null, p95Ms: null });
    assert.deepEqual(
      empty.buckets.map((b) => b.start.getTime() - empty.from.getTime()),
      Array.from({ length: 24 }, (_, i) => i * HOUR),
    );

    const filled = fillSeries('day', now, [
      { start: new Date('2026-03-10T14:00:00Z'), done: 3, failed: 1, dead: 0, p50: 12, p95: 40 },
      { start: new Date('2026-03-09T15:00:00Z'), done: 0, failed: 0, dead: 2, p50: 5, p95: 5 },
      { start: new Date('2026-03-09T14:00:00Z'), done: 9, failed: 9, dead: 9, p50: 1, p95: 1 },
      { start: null, done: 3, failed: 1, dead: 2, p50: 10, p95: 39 },
    ]);
    assert.deepEqual(
      { ...filled.buckets[23], start: filled.buckets[23].start.toISOString() },
      { start: '2026-03-10T14:00:00.000Z', done: 3, failed: 1, dead: 0, attempts: 4, p50Ms: 12, p95Ms: 40 },
    );
    assert.equal(filled.buckets[0].dead, 2);
    assert.equal(
      filled.buckets.reduce((sum, b) => sum + b.attempts, 0),
      6,
      'the row before the window is left out',
    );
    assert.deepEqual(filled.totals, { done: 3, failed: 1, dead: 2, attempts: 6, p50Ms: 10, p95Ms: 39 });
  });
});

describe('delivery series from the attempts', () => {
  // a fixed now, within a day of the real clock (so the rows land in partitions that exist)
  const now = new Date(Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR + 30 * MINUTE);
  const at = (ms: number, outcome: PastAttempt['outcome'], durationMs = 10): PastAttempt => ({
    at: new Date(now.getTime() + ms),
    outcome,
    durationMs,
  });

  it('counts each attempt in the bucket it started in, by outcome; the window start is in, its end out', async () => {
    const ep = await endpoint(h, 'http://127.0.0.1:9/');
    const grid = seriesGrid('day', now);
    const first = grid.from.getTime() - now.getTime();
    const end = grid.until.getTime() - now.getTime();
    await seedAttempts(h.sql, ep, [
      [at(first, 'done')],
      [at(first - 1, 'done')],
      [at(end - 1, 'dead')],
      [at(end, 'done')],
      [at(-3 * HOUR, 'retry'), at(-3 * HOUR + MINUTE, 'retry'), at(-2 * HOUR, 'dead')],
      [at(-3 * HOUR + 5 * MINUTE, 'retry'), at(-3 * HOUR + 10 * MINUTE, 'done')],
    ]);
    const series = await deliverySeries(h, OPERATOR, { window: 'day', endpoint: ep.id, now });
    assert.equal(series.buckets.length, 24);
    assert.deepEqual(
      [series.buckets[0].done, series.buckets[23].dead],
      [1, 1],
      'the first bucket starts the window, the last ends it',
    );
    const threeAgo = series.buckets.find(
      (b) => b.start.getTime() === Math.floor((now.getTime() - 3 * HOUR) / HOUR) * HOUR,
    );
    assert.deepEqual(
      threeAgo && [threeAgo.done, threeAgo.failed, threeAgo.dead],
      [1, 3, 0],
      'three hours ago: three failed attempts and one done',
    );
    assert.deepEqual(
      [series.totals.done, series.totals.failed, series.totals.dead, series.totals.attempts],
      [2, 3, 2, 7],
      'the attempts before the window and at its end are left out',
    );
  });

  it('p50 and p95 of the attempt durations, per bucket and over the window', async () => {
    const ep = await endpoint(h, 'http://127.0.0.1:9/');
    await seedAttempts(h.sql, ep, [
      [at(-10 * MINUTE, 'done', 10)],
      [at(-9 * MINUTE, 'done', 20)],
      [at(-8 * MINUTE, 'retry', 30)],
      [at(-7 * MINUTE, 'dead', 40)],
      [at(-5 * HOUR, 'done', 1000)],
    ]);
    const series = await deliverySeries(h, OPERATOR, { window: 'day', endpoint: ep.id, now });
    const last = series.buckets.at(-1);
    // percentile_cont: linear between the closest ranks
    assert.deepEqual([last?.p50Ms, last?.p95Ms], [25, 38.5]);
    assert.deepEqual([series.totals.p50Ms, series.totals.p95Ms], [30, 808]);
    const hourly = await deliverySeries(h, OPERATOR, { window: 'hour', endpoint: ep.id, now });
    assert.equal(hourly.buckets.length, 60);
    assert.equal(hourly.totals.attempts, 4, 'the last hour leaves out the attempt of five hours ago');
    assert.equal(hourly.buckets.find((b) => b.start.getTime() === now.getTime() - 9 * MINUTE)?.done, 1);
  });

  it("a tenant's series never counts another tenant's attempts; an admin's counts every tenant's, or one owner's", async () => {
    const acme = await endpoint(h, 'http://127.0.0.1:9/', { owner: 'series-acme' });
    const globex = await endpoint(h, 'http://127.0.0.1:9/', { owner: 'series-globex' });
    const unowned = await endpoint(h, 'http://127.0.0.1:9/', { owner: null });
    const later = new Date(now.getTime() + 20 * HOUR);
    const near = (outcome: PastAttempt['outcome']) => [
      { at: new Date(later.getTime() - MINUTE), outcome, durationMs: 5 },
    ];
    await seedAttempts(h.sql, acme, [near('done'), near('done')]);
    await seedAttempts(h.sql, globex, [near('dead')]);
    await seedAttempts(h.sql, unowned, [near('retry')]);
    const totals = async (...args: Parameters<typeof deliverySeries>) => {
      const { done, failed, dead } = (await deliverySeries(...args)).totals;
      return [done, failed, dead];
    };
    // the hour ending at `later` holds only these attempts (the other tests' are before it)
    assert.deepEqual(await totals(h, tenantActor('series-acme'), { window: 'hour', now: later }), [2, 0, 0]);
    assert.deepEqual(await totals(h, tenantActor('series-globex'), { window: 'hour', now: later }), [0, 0, 1]);
    assert.deepEqual(
      await totals(h, tenantActor('series-acme'), { window: 'hour', endpoint: globex.id, now: later }),
      [0, 0, 0],
      "another tenant's endpoint counts nothing",
    );
    assert.deepEqual(await totals(h, OPERATOR, { window: 'hour', now: later }), [2, 1, 1]);
    assert.deepEqual(await totals(h, OPERATOR, { window: 'hour', owner: 'series-globex', now: later }), [0, 0, 1]);
    assert.deepEqual(await totals(h, OPERATOR, { window: 'hour', owner: null, now: later }), [0, 1, 0]);
  });

  it("an endpoint moved to another tenant: the new tenant's series leaves out what the earlier one sent through it", async () => {
    const moved = await endpoint(h, 'http://127.0.0.1:9/', { owner: 'series-before' });
    // one delivery made and attempted in the window, one made before it and retried in it
    await seedAttempts(h.sql, moved, [[at(-HOUR, 'done')], [at(-25 * HOUR, 'retry'), at(-2 * HOUR, 'dead')]]);
    await updateEndpoint(h, OPERATOR, moved.id, { owner: 'series-after' });
    await seedAttempts(h.sql, { id: moved.id, owner: 'series-after' }, [[at(-30 * MINUTE, 'retry')]]);
    const totals = async (scope: Actor, query: Partial<SeriesQuery> = {}) => {
      const { done, failed, dead } = (await deliverySeries(h, scope, { window: 'day', now, ...query })).totals;
      return [done, failed, dead];
    };
    assert.deepEqual(await totals(tenantActor('series-after')), [0, 1, 0]);
    assert.deepEqual(await totals(tenantActor('series-after'), { endpoint: moved.id }), [0, 1, 0]);
    assert.deepEqual(await totals(OPERATOR, { owner: 'series-after' }), [0, 1, 0]);
    assert.deepEqual(
      await totals(OPERATOR, { endpoint: moved.id }),
      [1, 1, 1],
      "an admin's view of the endpoint counts every attempt made through it",
    );
  });
});
