/**
 * Past `api.exactTotal` the event and delivery listings answer PostgreSQL's estimate as their
 * total: REST says `totalEstimated: true` beside `total`, sends the same number in
 * `X-Total-Count`, and GraphQL pages carry `totalEstimated`; under the bound all is exact.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { call, closeAll, startApi } from './helpers.ts';

const app = await startApi({ api: { exactTotal: 3 } });

describe('estimated totals', () => {
  after(closeAll);

  it('REST and GraphQL say when a total is an estimate, and never give less than the bound', async () => {
    const admin = await app.token('admin');
    const made = await call('POST', `${app.api}/webhooks`, {
      token: admin,
      body: { url: 'https://receiver.example/in', events: ['*'], owner: 'estimates' },
    });
    assert.equal(made.status, 201, made.text);
    for (let i = 0; i < 5; i++) {
      const emitted = await call('POST', `${app.api}/events`, {
        token: admin,
        body: { type: 'order.created', data: { i }, owner: 'estimates' },
      });
      assert.equal(emitted.status, 202, emitted.text);
    }

    const deliveries = await call('GET', `${app.api}/deliveries?owner=estimates&per_page=2`, { token: admin });
    assert.equal(deliveries.status, 200, deliveries.text);
    assert.equal(deliveries.body.totalEstimated, true);
    assert.ok(deliveries.body.total >= 4, `at least the bound + 1, got ${deliveries.body.total}`);
    assert.equal(deliveries.headers.get('x-total-count'), String(deliveries.body.total));
    assert.equal(deliveries.body._embedded.deliveries.length, 2);

    const events = await call('GET', `${app.api}/events?owner=estimates&type=order.created&per_page=2`, {
      token: admin,
    });
    assert.equal(events.body.totalEstimated, true);

    const one = await call(
      'GET',
      `${app.api}/deliveries?owner=estimates&event=${deliveries.body._embedded.deliveries[0].eventId}`,
      { token: admin },
    );
    assert.deepEqual([one.body.total, one.body.totalEstimated, one.headers.get('x-total-count')], [1, false, '1']);

    const gql = await call('POST', `${app.base}/_app/gql`, {
      token: admin,
      headers: { Accept: 'application/json' },
      body: {
        query:
          '{ webhookDeliveries(filter: { owner: "estimates" }, perPage: 2) { total totalEstimated pages } webhookEvents(filter: { owner: "estimates" }, perPage: 2) { total totalEstimated } }',
      },
    });
    assert.equal(gql.status, 200, gql.text);
    assert.equal(gql.body.errors, undefined, gql.text);
    assert.equal(gql.body.data.webhookDeliveries.totalEstimated, true);
    assert.ok(gql.body.data.webhookDeliveries.total >= 4);
    assert.equal(gql.body.data.webhookEvents.totalEstimated, true);
  });

  it('a page far past the end answers an estimate of at most its offset, and its last link points back within it', async () => {
    const admin = await app.token('admin');
    const page = 5_000; // the deepest page of 2 within api.maxPageOffset (10,000 rows)
    const far = await call('GET', `${app.api}/deliveries?owner=estimates&per_page=2&page=${page}`, { token: admin });
    assert.equal(far.status, 200, far.text);
    assert.equal(far.body._embedded.deliveries.length, 0);
    assert.ok(far.body.total < 100, `the estimate, not the page asked times its size: ${far.body.total}`);
    const last = Number(new URL(far.body._links.last.href, app.base).searchParams.get('page'));
    assert.ok(last < 50, `last is page ${last}`);
    const events = await call('GET', `${app.api}/events?owner=estimates&type=order.created&per_page=2&page=${page}`, {
      token: admin,
    });
    assert.ok(events.body.total < 100, `events: ${events.body.total}`);
  });
});
