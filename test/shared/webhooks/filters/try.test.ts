/**
 * Trying a filter (shared/webhooks/filters/try.ts) and the emit's use of filters, in the core:
 * a try answers what an emit decides for the same filter and event; a retained event and an
 * endpoint's recent events are read in the caller's tenant scope; a malformed try is refused, and
 * a sample event exactly when an emit of it would be, by the same code;
 * an emit keeps how many endpoints its filters left out, even when that is every one of them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPERATOR, actorOf } from '../../../../shared/access/actor.ts';
import { isAppError } from '../../../../shared/errors/app-error.ts';
import { registerEndpoint, updateEndpoint } from '../../../../shared/webhooks/endpoints/index.ts';
import { emitEvent, showEvent } from '../../../../shared/webhooks/events/index.ts';
import { createEventType } from '../../../../shared/webhooks/event-types/catalog.ts';
import { recentEventsOfEndpoint, testFilter } from '../../../../shared/webhooks/filters/try.ts';
import { tenantActor } from '../../../helpers/actors.ts';
import { createMetrics } from '../../../../shared/metrics/registry.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { depsOf } from '../fixtures.ts';

const db = await createTestDatabase();
const deps = depsOf(db, { webhooks: { allowHttp: true, allowPrivate: true } });
const member = (owner: string) => actorOf({ id: `member-${owner}`, roles: ['member'], owner });
const viewer = (owner: string) => actorOf({ id: `viewer-${owner}`, roles: ['viewer'], owner });

/** The code and status of what `promise` throws. */
async function refusal(
  promise: Promise<unknown>,
): Promise<{ status: number; code: string | undefined; data: unknown }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isAppError(error), String(error));
    return { status: error.status, code: error.code, data: error.data };
  }
  throw new Error('expected a refusal');
}

const FILTERS = [
  { 'data.country': { $in: ['FR', 'DE'] } },
  { 'data.amount': { $gte: 100 } },
  { $or: [{ 'data.vip': true }, { 'data.amount': { $gt: 1000 } }] },
  { type: { $regex: '\\.paid$' }, 'data.country': { $ne: 'US' } },
  { 'data.items.sku': { $regex: '^GIFT-' } },
];
const EVENTS = [
  { type: 'order.created', data: { country: 'FR', amount: 50 } },
  { type: 'order.paid', data: { country: 'US', amount: 5000, vip: false } },
  { type: 'order.paid', data: { country: 'DE', amount: 150, items: [{ sku: 'GIFT-1' }] } },
  { type: 'order.created', data: { country: 'IT', amount: '500', vip: true } },
  { type: 'order.refunded', data: { items: [{ sku: 'A' }, { sku: 'GIFT-9' }] } },
];

describe('trying a filter answers what an emit decides', () => {
  it('for every filter and event of a table, the try and the emit agree', async () => {
    const owner = 'parity';
    const endpoints = [];
    for (const filter of FILTERS)
      endpoints.push(
        await registerEndpoint(deps, OPERATOR, { url: 'http://127.0.0.1:9/p', events: ['order.*'], owner, filter }),
      );
    let agreed = 0;
    for (const event of EVENTS) {
      const emitted = await emitEvent(deps, OPERATOR, { type: event.type, data: event.data, owner });
      const reached = new Set(emitted.deliveries.map((delivery) => delivery.endpointId));
      for (const [i, filter] of FILTERS.entries()) {
        const tried = await testFilter(deps, OPERATOR, { filter, event });
        assert.equal(tried.matches, reached.has(endpoints[i].id), `filter ${i} on ${JSON.stringify(event)}`);
        // and on the retained event, the very event the emit decided on
        const retained = await testFilter(deps, OPERATOR, { filter, eventId: emitted.event!.id });
        assert.equal(retained.matches, tried.matches);
        agreed++;
      }
      assert.equal(emitted.filteredOut, FILTERS.length - reached.size);
    }
    assert.equal(agreed, FILTERS.length * EVENTS.length);
  });

  it('a miss names the condition that failed first; the event is the one tried (timestamp now when absent)', async () => {
    const before = Date.now();
    const tried = await testFilter(deps, viewer('acme'), {
      filter: { 'data.country': 'FR', 'data.amount': { $gte: 100 } },
      event: { type: 'order.created', data: { country: 'FR', amount: 42 } },
    });
    assert.deepEqual(
      { matches: tried.matches, failed: tried.failed },
      { matches: false, failed: { path: 'data.amount', operator: '$gte', at: 'data.amount.$gte' } },
    );
    assert.ok(Date.parse(tried.event.timestamp) >= before - 1);
    const none = await testFilter(deps, viewer('acme'), { filter: null, event: { type: 'x' } });
    assert.deepEqual({ matches: none.matches, failed: none.failed }, { matches: true, failed: null });
    assert.deepEqual(none.event.data, {});
  });

  it('a filter a save would refuse is refused by a try, with the same code, path and reason', async () => {
    const answer = await refusal(
      testFilter(deps, OPERATOR, { filter: { 'data.a': { $where: 'x' } }, event: { type: 'a' } }),
    );
    assert.deepEqual(answer, {
      status: 422,
      code: 'APP_WEBHOOK_FILTER_INVALID',
      data: {
        field: 'filter',
        path: 'data.a.$where',
        reason:
          'unknown operator $where in a field’s condition (allowed: $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $exists, $regex, $options, $not)',
      },
    });
  });

  it('a malformed try is refused with APP_WEBHOOK_FILTER_TEST_INVALID naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [null, 'body'],
      [{ event: { type: 'a' } }, 'filter'],
      [{ filter: null }, 'event'],
      [{ filter: null, event: { type: 'a' }, eventId: 'evt_x' }, 'eventId'],
      [{ filter: null, event: { type: 'a' }, extra: 1 }, 'extra'],
      [{ filter: null, event: 'order.created' }, 'event'],
      [{ filter: null, event: { type: 'a', id: 'msg_1' } }, 'event.id'],
      [{ filter: null, eventId: 5 }, 'eventId'],
    ];
    for (const [input, field] of cases) {
      const answer = await refusal(testFilter(deps, OPERATOR, input as never));
      assert.equal(answer.code, 'APP_WEBHOOK_FILTER_TEST_INVALID', JSON.stringify(input));
      assert.equal((answer.data as { field: string }).field, field, JSON.stringify(input));
    }
  });
});

describe('a sample event is refused exactly when an emit of it would be, by the same code', () => {
  /** The code and `data.field` of a refusal. */
  const codeOf = async (promise: Promise<unknown>) => {
    const { code, data } = await refusal(promise);
    return { code, field: (data as { field?: string }).field };
  };

  it('a type, a payload or catalog data an emit refuses: the try refuses it with the emit’s code', async () => {
    const small = depsOf(db, { bodyLimit: 64, webhooks: { allowHttp: true, allowPrivate: true } });
    await createEventType(small, OPERATOR, {
      name: 'sample.typed',
      schema: { type: 'object', required: ['n'], properties: { n: { type: 'number' } } },
    });
    const cases: Array<[string, { type?: unknown; data?: unknown }]> = [
      ['no type', { data: {} }],
      ['a type that is no event name', { type: 'Not a name!' }],
      ['a type that is not a string', { type: 5 }],
      ['a payload JSON cannot carry', { type: 'a', data: { n: Number.POSITIVE_INFINITY } }],
      ['a payload past bodyLimit', { type: 'a', data: { text: 'x'.repeat(100) } }],
      ['data outside its type’s schema', { type: 'sample.typed', data: { n: 'one' } }],
    ];
    for (const [why, event] of cases) {
      const emitted = await codeOf(emitEvent(small, OPERATOR, event));
      const tried = await codeOf(testFilter(small, OPERATOR, { filter: null, event }));
      assert.ok(emitted.code?.startsWith('APP_WEBHOOK_'), `${why}: ${emitted.code}`);
      assert.deepEqual(tried, emitted, why);
    }
    const strict = depsOf(db, { webhooks: { strictEventTypes: true } });
    const unknownType = { type: 'sample.unlisted', data: {} };
    assert.deepEqual(await codeOf(testFilter(strict, OPERATOR, { filter: null, event: unknownType })), {
      code: 'APP_WEBHOOK_EVENT_TYPE_UNKNOWN',
      field: 'type',
    });
    assert.deepEqual(await codeOf(emitEvent(strict, OPERATOR, unknownType)), {
      code: 'APP_WEBHOOK_EVENT_TYPE_UNKNOWN',
      field: 'type',
    });
    const typed = await testFilter(small, OPERATOR, {
      filter: { 'data.n': 1 },
      event: { type: 'sample.typed', data: { n: 1 } },
    });
    assert.equal(typed.matches, true, 'data its schema accepts is tried');
  });

  it('a timestamp no emit can stamp is APP_WEBHOOK_EVENT_INVALID (field timestamp); one it can is seen as a delivery body writes it', async () => {
    for (const timestamp of [
      'yesterday',
      5,
      null,
      '',
      '99999-01-01T00:00:00Z',
      '+099999-01-01T00:00:00.000Z',
      '0000-06-01T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2026-01-31T25:00:00Z',
    ]) {
      const answer = await refusal(testFilter(deps, OPERATOR, { filter: null, event: { type: 'a', timestamp } }));
      assert.equal(answer.code, 'APP_WEBHOOK_EVENT_INVALID', JSON.stringify(timestamp));
      assert.equal((answer.data as { field: string }).field, 'timestamp', JSON.stringify(timestamp));
    }
    for (const [given, seen] of [
      ['2026-01-31T12:00:00+02:00', '2026-01-31T10:00:00.000Z'],
      ['2026-01-31T10:00:00Z', '2026-01-31T10:00:00.000Z'],
      ['2026-01-31T10:00:00.123456Z', '2026-01-31T10:00:00.123Z'],
      ['2026-01-31', '2026-01-31T00:00:00.000Z'],
    ]) {
      const tried = await testFilter(deps, OPERATOR, {
        filter: { timestamp: seen },
        event: { type: 'a', timestamp: given },
      });
      assert.equal(tried.event.timestamp, seen, given);
      assert.equal(tried.matches, true, `${given} is seen as ${seen}`);
    }
  });
});

describe('trying a filter stays in the caller’s tenant', () => {
  it('a retained event of another tenant is a 404, as one that does not exist; its own is tried', async () => {
    const [acme] = [
      await registerEndpoint(deps, OPERATOR, { url: 'http://127.0.0.1:9/a', events: ['*'], owner: 'acme' }),
    ];
    await registerEndpoint(deps, OPERATOR, { url: 'http://127.0.0.1:9/g', events: ['*'], owner: 'globex' });
    const theirs = await emitEvent(deps, OPERATOR, { type: 'secret.plan', data: { plan: 'x' }, owner: 'globex' });
    const ours = await emitEvent(deps, OPERATOR, { type: 'order.created', data: { n: 1 }, owner: 'acme' });
    for (const actor of [member('acme'), viewer('acme')]) {
      const answer = await refusal(
        testFilter(deps, actor, { filter: { 'data.plan': 'x' }, eventId: theirs.event!.id }),
      );
      assert.deepEqual(answer, { status: 404, code: 'APP_WEBHOOK_EVENT_NOT_FOUND', data: { id: theirs.event!.id } });
      const tried = await testFilter(deps, actor, { filter: { 'data.n': 1 }, eventId: ours.event!.id });
      assert.equal(tried.matches, true);
    }
    const missing = await refusal(testFilter(deps, viewer('acme'), { filter: null, eventId: 'evt_missing' }));
    assert.equal(missing.code, 'APP_WEBHOOK_EVENT_NOT_FOUND');
    // the endpoint's recent events: its own owner's, of the types it subscribes to
    const recent = await recentEventsOfEndpoint(deps, tenantActor('acme'), acme.id);
    assert.ok(recent.some((event) => event.id === ours.event!.id));
    assert.ok(!recent.some((event) => event.id === theirs.event!.id));
    const outside = await refusal(recentEventsOfEndpoint(deps, tenantActor('globex'), acme.id));
    assert.equal(outside.code, 'APP_WEBHOOK_NOT_FOUND');
  });

  it('an endpoint’s recent events are those its patterns match, newest first, whatever its filter decided', async () => {
    const owner = 'recent';
    const endpoint = await registerEndpoint(deps, OPERATOR, {
      url: 'http://127.0.0.1:9/r',
      events: ['invoice.*'],
      owner,
      filter: { 'data.amount': { $gt: 10 } },
    });
    const emitted = [];
    for (const [type, amount] of [
      ['invoice.paid', 5],
      ['order.created', 50],
      ['invoice.created', 50],
    ] as const)
      emitted.push(await emitEvent(deps, OPERATOR, { type, data: { amount }, owner }));
    const recent = await recentEventsOfEndpoint(deps, OPERATOR, endpoint.id);
    assert.deepEqual(
      recent.map((event) => event.type),
      ['invoice.created', 'invoice.paid'],
    );
    assert.equal(emitted[0].deliveries.length, 0, 'its filter left the small invoice out');
    assert.equal(emitted[1].event, null, 'no endpoint subscribes to order.created: nothing written');
  });

  it('a viewer may try a filter but not set one', async () => {
    const endpoint = await registerEndpoint(deps, OPERATOR, {
      url: 'http://127.0.0.1:9/v',
      events: ['*'],
      owner: 'acme',
    });
    const answer = await refusal(updateEndpoint(deps, viewer('acme'), endpoint.id, { filter: { 'data.a': 1 } }));
    assert.deepEqual(answer, {
      status: 403,
      code: 'APP_FORBIDDEN',
      data: { operation: 'endpoints.update', role: 'viewer' },
    });
    assert.equal(
      (await testFilter(deps, viewer('acme'), { filter: { 'data.a': 1 }, event: { type: 'a', data: { a: 1 } } }))
        .matches,
      true,
    );
  });
});

describe('emit with filters', () => {
  it('an event every subscriber’s filter left out is written without deliveries, with filteredOut, and counted', async () => {
    const owner = 'all-out';
    const metrics = createMetrics({ process: 'web' });
    const counted = { ...deps, metrics };
    for (const country of ['FR', 'DE'])
      await registerEndpoint(deps, OPERATOR, {
        url: 'http://127.0.0.1:9/o',
        events: ['order.*'],
        owner,
        filter: { 'data.country': country },
      });
    await registerEndpoint(deps, OPERATOR, { url: 'http://127.0.0.1:9/o', events: ['invoice.*'], owner });
    const out = await emitEvent(counted, OPERATOR, { type: 'order.created', data: { country: 'US' }, owner });
    assert.equal(out.deliveries.length, 0);
    assert.equal(out.filteredOut, 2);
    assert.ok(out.event, 'the event is written, so its page tells what the filters decided');
    const shown = await showEvent(deps, OPERATOR, out.event.id);
    assert.equal(shown.filteredOut, 2);
    assert.equal(shown.deliveries.total, 0);
    const one = await emitEvent(counted, OPERATOR, { type: 'order.created', data: { country: 'FR' }, owner });
    assert.equal(one.deliveries.length, 1);
    assert.equal((await showEvent(deps, OPERATOR, one.event!.id)).filteredOut, 1);
    assert.equal((await metrics.filteredOut.get()).values[0].value, 3);
    // a repeated eventId answers the original, its filteredOut included, and counts nothing more
    const first = await emitEvent(counted, OPERATOR, {
      type: 'order.created',
      data: { country: 'US' },
      owner,
      eventId: 'same-1',
    });
    const again = await emitEvent(counted, OPERATOR, {
      type: 'order.created',
      data: { country: 'US' },
      owner,
      eventId: 'same-1',
    });
    assert.equal(again.duplicate, true);
    assert.equal(again.event!.id, first.event!.id);
    assert.equal(again.filteredOut, 2);
    assert.equal((await metrics.filteredOut.get()).values[0].value, 5);
  });

  it('filters see the data as the receiver does: through JSON (a Date is its ISO text)', async () => {
    const owner = 'json-view';
    await registerEndpoint(deps, OPERATOR, {
      url: 'http://127.0.0.1:9/j',
      events: ['*'],
      owner,
      filter: { 'data.at': { $gte: '2031-01-01' }, 'data.gone': { $exists: false } },
    });
    const emitted = await emitEvent(deps, OPERATOR, {
      type: 'clock.tick',
      data: { at: new Date('2031-06-01T00:00:00Z'), gone: undefined },
      owner,
    });
    assert.equal(emitted.deliveries.length, 1);
  });
});
