import { describe, it, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from '../../../helpers/database.ts';
import { eventually } from '../../../helpers/poll.ts';
import { emit } from '../../../../shared/webhooks/events/emit.ts';
import { createWebhooks } from '../../../../shared/webhooks/index.ts';
import { appError, clearQueue, counts, depsOf, queuedJobs } from '../fixtures.ts';
import {
  disableEndpoint,
  enableEndpoint,
  registerEndpoint,
  updateEndpoint,
} from '../../../../shared/webhooks/endpoints/index.ts';
import { emitEvent, sendToEndpoint } from '../../../../shared/webhooks/events/index.ts';
import { actorOf, OPERATOR } from '../../../../shared/access/actor.ts';

const db = await createTestDatabase();
const deps = () => depsOf(db);
const url = 'https://127.0.0.1/hook';

beforeEach(async () => {
  await db.sql`delete from app_webhooks`;
  await clearQueue(db.sql);
});

describe('emit: subscription matching', () => {
  it('reaches *, the exact name and every family above the name, and nothing else', async () => {
    const names: Record<string, string[]> = {
      star: ['*'],
      exact: ['order.created'],
      family: ['order.*'],
      deep: ['order.created.*'],
      other: ['invoice.*'],
      prefixOnly: ['order'],
      lookalike: ['orders.*'],
      exactOther: ['order.updated'],
    };
    const ids: Record<string, string> = {};
    for (const [name, events] of Object.entries(names))
      ids[name] = (await registerEndpoint(deps(), OPERATOR, { url, events })).id;
    const reached = async (event: string) => {
      const deliveries = await emit(deps(), event, {});
      const byId = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
      return deliveries.map((d) => byId.get(d.endpointId)).sort();
    };
    assert.deepEqual(await reached('order.created'), ['exact', 'family', 'star']);
    assert.deepEqual(
      await reached('order.created.v2'),
      ['deep', 'family', 'star'],
      'a family matches every deeper name',
    );
    assert.deepEqual(await reached('order'), ['prefixOnly', 'star'], 'a family does not match its prefix itself');
    assert.deepEqual(await reached('orders.created'), ['lookalike', 'star']);
    assert.deepEqual(await reached('Order.created'), ['star'], 'names are case-sensitive');
  });

  it('skips disabled endpoints, and reaches them again once enabled', async () => {
    const endpoint = await registerEndpoint(deps(), OPERATOR, { url, events: ['*'] });
    await disableEndpoint(deps(), OPERATOR, endpoint.id);
    assert.deepEqual(await emit(deps(), 'a.b', {}), []);
    await enableEndpoint(deps(), OPERATOR, endpoint.id);
    assert.equal((await emit(deps(), 'a.b', {})).length, 1);
  });

  it('writes nothing at all when no endpoint matches', async () => {
    await registerEndpoint(deps(), OPERATOR, { url, events: ['x.y'] });
    assert.deepEqual(await emit(deps(), 'a.b', { a: 1 }), []);
    assert.deepEqual(await counts(db.sql), { events: 0, deliveries: 0, jobs: 0 });
  });

  for (const event of ['', 'a*', 'order.*', '*', 'a..b', 'a b', 7]) {
    it(`refuses the event name ${JSON.stringify(event)} with APP_WEBHOOK_EVENT_INVALID`, async () => {
      await assert.rejects(emit(deps(), event as string, {}), appError('APP_WEBHOOK_EVENT_INVALID', 422));
    });
  }
});

describe('emit: tenant isolation', () => {
  it("an emit for owner A reaches only A's endpoints; one for B only B's; one without owner only owner-less ones", async () => {
    const a = await registerEndpoint(deps(), OPERATOR, { url, events: ['*'], owner: 'A' });
    const b = await registerEndpoint(deps(), OPERATOR, { url, events: ['*'], owner: 'B' });
    const none = await registerEndpoint(deps(), OPERATOR, { url, events: ['*'] });
    const forA = await emit(deps(), 'order.created', { n: 1 }, { owner: 'A' });
    assert.deepEqual(
      forA.map((d) => d.endpointId),
      [a.id],
    );
    const forB = await emit(deps(), 'order.created', { n: 2 }, { owner: 'B' });
    assert.deepEqual(
      forB.map((d) => d.endpointId),
      [b.id],
    );
    const forNone = await emit(deps(), 'order.created', { n: 3 });
    assert.deepEqual(
      forNone.map((d) => d.endpointId),
      [none.id],
    );
    const forNull = await emit(deps(), 'order.created', { n: 4 }, { owner: null });
    assert.deepEqual(
      forNull.map((d) => d.endpointId),
      [none.id],
    );
    assert.deepEqual(
      await emit(deps(), 'order.created', {}, { owner: 'C' }),
      [],
      'an unknown owner reaches nobody, not everybody',
    );

    const jobs = await queuedJobs(db.sql);
    const endpointsOfJobsFor = (n: number) =>
      jobs.filter((j) => JSON.parse(j.payload.body).data.n === n).map((j) => j.payload.endpointId);
    assert.deepEqual(endpointsOfJobsFor(1), [a.id]);
    assert.deepEqual(endpointsOfJobsFor(2), [b.id]);
    assert.deepEqual(endpointsOfJobsFor(3), [none.id]);
    const rows = await db.sql<
      { endpoint_id: string; owner: string | null }[]
    >`select endpoint_id, owner from app_webhook_deliveries`;
    for (const row of rows) {
      const expectedOwner = row.endpoint_id === a.id ? 'A' : row.endpoint_id === b.id ? 'B' : null;
      assert.equal(row.owner, expectedOwner);
    }
  });

  it("an emit repeating an eventId answers a tenant's caller only the deliveries it still reaches, an operator every one", async () => {
    const staying = await registerEndpoint(deps(), OPERATOR, { url, events: ['*'], owner: 'A' });
    const moving = await registerEndpoint(deps(), OPERATOR, { url, events: ['*'], owner: 'A' });
    const member = actorOf({ id: 'tok_member', roles: ['member'], owner: 'A' });
    const input = { type: 'order.created', data: {}, eventId: 'order-7' };
    const first = await emitEvent(deps(), member, input);
    assert.equal(first.deliveries.length, 2);
    await updateEndpoint(deps(), OPERATOR, moving.id, { owner: 'B' });
    const again = await emitEvent(deps(), member, input);
    assert.equal(again.duplicate, true);
    assert.deepEqual(
      again.deliveries.map((d) => d.endpointId),
      [staying.id],
      "the delivery to the endpoint given to B is out of A's reach, as in A's delivery listing",
    );
    const operator = await emitEvent(deps(), OPERATOR, { ...input, owner: 'A' });
    assert.deepEqual(operator.deliveries.map((d) => d.endpointId).sort(), [staying.id, moving.id].sort());
  });

  it('a stale cache cannot send to an endpoint that moved to another owner: ownership is checked in the transaction', async () => {
    const webhooks = createWebhooks(deps());
    try {
      const endpoint = await webhooks.register({ url, events: ['*'], owner: 'A' });
      assert.equal((await webhooks.cache.get('A')).length, 1);
      // Moved behind the cache's back (no notification reaches it before the emit).
      await db.sql`update app_webhooks set owner = 'B' where id = ${endpoint.id}`;
      assert.deepEqual(await webhooks.emit('a.b', {}, { owner: 'A' }), []);
      await db.sql`update app_webhooks set owner = 'A', disabled_at = now() where id = ${endpoint.id}`;
      assert.deepEqual(await webhooks.emit('a.b', {}, { owner: 'A' }), []);
      await db.sql`delete from app_webhooks where id = ${endpoint.id}`;
      assert.deepEqual(
        await webhooks.emit('a.b', {}, { owner: 'A' }),
        [],
        'a removed endpoint does not make the emit fail',
      );
      assert.deepEqual(await counts(db.sql), { events: 0, deliveries: 0, jobs: 0 });
    } finally {
      await webhooks.close();
    }
  });

  it('refuses an empty owner instead of reading it as "no owner"', async () => {
    await assert.rejects(emit(deps(), 'a.b', {}, { owner: '' }), appError('APP_WEBHOOK_OWNER_INVALID', 422));
  });

  it('takes an owner with a trailing space: an emit creates no tenant, and such owners were stored before', async () => {
    await clearQueue(db.sql);
    assert.deepEqual(await emit(deps(), 'a.b', {}, { owner: 'acme ' }), []);
    await assert.rejects(emit(deps(), 'a.b', {}, { owner: 'acme\u0007' }), appError('APP_WEBHOOK_OWNER_INVALID', 422));
  });
});

describe('emit: what is written', () => {
  it('one event row, one delivery row and one app/webhook job per endpoint, with the signed body as job argument', async () => {
    const e1 = await registerEndpoint(deps(), OPERATOR, { url, events: ['order.*'], owner: 'acme' });
    const e2 = await registerEndpoint(deps(), OPERATOR, { url, events: ['*'], owner: 'acme' });
    const before = Date.now();
    const deliveries = await emit(deps(), 'order.created', { id: 42, items: ['a'], ünïcödé: '✓' }, { owner: 'acme' });
    assert.equal(deliveries.length, 2);
    const [event] = await db.sql<
      { id: string; type: string; owner: string; payload: unknown; created_at: Date }[]
    >`select * from app_events`;
    assert.equal(event.type, 'order.created');
    assert.equal(event.owner, 'acme');
    assert.deepEqual(event.payload, { id: 42, items: ['a'], ünïcödé: '✓' });
    const jobs = await queuedJobs(db.sql);
    assert.equal(jobs.length, 2);
    for (const delivery of deliveries) {
      assert.match(delivery.id, /^msg_[0-9A-Z]{26}$/);
      assert.ok(!delivery.id.includes('.'));
      assert.equal(delivery.eventId, event.id);
      assert.equal(delivery.status, 'pending');
      assert.equal(delivery.queue, 'webhooks');
      assert.ok([e1.id, e2.id].includes(delivery.endpointId));
      const job = jobs.find((j) => j.key === delivery.id);
      assert.ok(job, 'job keyed by the delivery id');
      assert.equal(job.task, 'app/webhook');
      assert.equal(job.max_attempts, 1, 'the worker schedules retries itself');
      assert.equal(job.queue_name, null, 'no serial graphile queue');
      assert.deepEqual(Object.keys(job.payload), ['deliveryId', 'endpointId', 'event', 'body']);
      assert.equal(job.payload.deliveryId, delivery.id);
      assert.equal(job.payload.endpointId, delivery.endpointId);
      assert.equal(job.payload.event, 'order.created');
      const [row] = await db.sql<
        { body: string; queue: string; status: string; event_type: string; owner: string }[]
      >`select * from app_webhook_deliveries where id = ${delivery.id}`;
      assert.equal(job.payload.body, row.body, 'the job carries the exact stored body');
      assert.equal(row.queue, 'webhooks');
      assert.equal(row.status, 'pending');
      assert.equal(row.event_type, 'order.created');
      assert.equal(row.owner, 'acme');
      // Event envelope: keys in this order; id = delivery id; timestamp = ISO 8601 UTC of the event.
      const envelope = JSON.parse(row.body);
      assert.deepEqual(Object.keys(envelope), ['data', 'id', 'timestamp', 'type']);
      assert.equal(
        row.body,
        JSON.stringify({ data: envelope.data, id: delivery.id, timestamp: envelope.timestamp, type: 'order.created' }),
      );
      assert.deepEqual(envelope.data, { id: 42, items: ['a'], ünïcödé: '✓' });
      assert.match(envelope.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(envelope.timestamp, event.created_at.toISOString());
      assert.equal(envelope.timestamp, delivery.createdAt.toISOString());
      assert.ok(Math.abs(Date.parse(envelope.timestamp) - before) < 10_000);
    }
  });

  it('uses the logical queue of webhooks.queue for the delivery rows', async () => {
    await registerEndpoint(deps(), OPERATOR, { url, events: ['*'] });
    const [delivery] = await emit(depsOf(db, { webhooks: { queue: 'priority-hooks' } }), 'a.b', {});
    assert.equal(delivery.queue, 'priority-hooks');
    const [row] = await db.sql<{ queue: string }[]>`select queue from app_webhook_deliveries where id = ${delivery.id}`;
    assert.equal(row.queue, 'priority-hooks');
    assert.equal((await queuedJobs(db.sql))[0].queue_name, null);
  });

  it('delivery ids sort by creation time', async () => {
    await registerEndpoint(deps(), OPERATOR, { url, events: ['*'] });
    const [first] = await emit(deps(), 'a.b', {});
    // ids of one millisecond are ordered by their random part: emit the second in a later one
    await eventually(
      () => Date.now() > first.createdAt.getTime(),
      10_000,
      "the clock to pass the first emit's millisecond",
      1,
    );
    const [second] = await emit(deps(), 'a.b', {});
    assert.ok(first.id < second.id);
  });

  it('a failure mid-way leaves neither the event, nor deliveries, nor jobs', async () => {
    for (let i = 0; i < 3; i++) await registerEndpoint(deps(), OPERATOR, { url, events: ['*'] });
    await db.sql`create or replace function graphile_worker.test_fail_insert() returns trigger language plpgsql as $$
      begin raise exception 'simulated queue failure'; end $$`;
    await db.sql`create trigger test_fail before insert on graphile_worker._private_jobs for each row execute function graphile_worker.test_fail_insert()`;
    try {
      await assert.rejects(emit(deps(), 'a.b', { a: 1 }), /simulated queue failure/);
      assert.deepEqual(await counts(db.sql), { events: 0, deliveries: 0, jobs: 0 });
    } finally {
      await db.sql`drop trigger test_fail on graphile_worker._private_jobs`;
      await db.sql`drop function graphile_worker.test_fail_insert()`;
    }
    assert.equal((await emit(deps(), 'a.b', { a: 1 })).length, 3, 'works again once the failure is gone');
  });
});

describe('emit: limits and payloads', () => {
  it('refuses more matches than webhooks.maxFanout with APP_WEBHOOK_FANOUT_EXCEEDED {limit, matched} and writes nothing', async () => {
    for (let i = 0; i < 4; i++) await registerEndpoint(deps(), OPERATOR, { url, events: ['*'], owner: 'big' });
    const limited = depsOf(db, { webhooks: { maxFanout: 3 } });
    await assert.rejects(
      emit(limited, 'a.b', {}, { owner: 'big' }),
      appError('APP_WEBHOOK_FANOUT_EXCEEDED', 422, (e) => {
        assert.equal(e.data?.limit, 3);
        assert.equal(e.data?.matched, 4);
      }),
    );
    assert.deepEqual(await counts(db.sql), { events: 0, deliveries: 0, jobs: 0 });
    assert.equal(
      (await emit(depsOf(db, { webhooks: { maxFanout: 4 } }), 'a.b', {}, { owner: 'big' })).length,
      4,
      'exactly the limit is allowed',
    );
  });

  it("writes 1,000 deliveries and jobs in bulk, one job per delivery (its speed is bench:emit's, not a test's)", async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({
      id: `ep_BULK${String(i).padStart(4, '0')}`,
      url,
      events: ['*'],
      owner: 'bulk',
    }));
    await db.sql`insert into app_webhooks ${db.sql(rows, 'id', 'url', 'events', 'owner')}`;
    for (let i = 0; i < 7; i++) {
      const deliveries = await emit(deps(), 'bulk.event', { i, text: 'x'.repeat(200) }, { owner: 'bulk' });
      assert.equal(deliveries.length, 1000);
    }
    const [{ jobs }] = await db.sql<
      { jobs: number }[]
    >`select count(*)::int as jobs from graphile_worker._private_jobs`;
    assert.equal(jobs, 7000);
  });

  it('refuses payloads that are not JSON with APP_WEBHOOK_PAYLOAD_INVALID', async () => {
    await registerEndpoint(deps(), OPERATOR, { url, events: ['*'] });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const payload of [cyclic, { n: 10n }, () => 1, Symbol('x'), { s: 'nul \u0000 char' }]) {
      await assert.rejects(emit(deps(), 'a.b', payload), appError('APP_WEBHOOK_PAYLOAD_INVALID', 422));
    }
    assert.deepEqual(await counts(db.sql), { events: 0, deliveries: 0, jobs: 0 });
  });

  it('sends an undefined payload as data null, and keeps a literal backslash-u0000 text', async () => {
    await registerEndpoint(deps(), OPERATOR, { url, events: ['*'] });
    const [a] = await emit(deps(), 'a.b', undefined);
    const [b] = await emit(deps(), 'a.b', { s: '\\u0000' });
    const bodies = new Map(
      (await db.sql<{ id: string; body: string }[]>`select id, body from app_webhook_deliveries`).map((r) => [
        r.id,
        JSON.parse(r.body),
      ]),
    );
    assert.equal(bodies.get(a.id).data, null);
    assert.equal(bodies.get(b.id).data.s, '\\u0000');
  });

  it('refuses a payload larger than config.bodyLimit with 413 APP_WEBHOOK_PAYLOAD_TOO_LARGE', async () => {
    await registerEndpoint(deps(), OPERATOR, { url, events: ['*'] });
    await assert.rejects(
      emit(depsOf(db, { bodyLimit: 1000 }), 'a.b', { text: 'x'.repeat(1000) }),
      appError('APP_WEBHOOK_PAYLOAD_TOO_LARGE', 413),
    );
  });
});

describe('sendToEndpoint (webhooks:send)', () => {
  it("queues one delivery for that endpoint whether or not it subscribed, with the endpoint's owner", async () => {
    const target = await registerEndpoint(deps(), OPERATOR, { url, events: ['invoice.paid'], owner: 'acme' });
    await registerEndpoint(deps(), OPERATOR, { url, events: ['*'], owner: 'acme' });
    const delivery = await sendToEndpoint(deps(), OPERATOR, target.id, 'test.ping', { hello: 'world' });
    assert.equal(delivery.endpointId, target.id);
    assert.equal(delivery.owner, 'acme');
    const jobs = await queuedJobs(db.sql);
    assert.equal(jobs.length, 1);
    assert.equal(jobs[0].payload.endpointId, target.id);
    assert.deepEqual(JSON.parse(jobs[0].payload.body), {
      data: { hello: 'world' },
      id: delivery.id,
      timestamp: delivery.createdAt.toISOString(),
      type: 'test.ping',
    });
  });

  it('refuses a disabled endpoint with 409 APP_WEBHOOK_ENDPOINT_DISABLED and writes nothing', async () => {
    const endpoint = await registerEndpoint(deps(), OPERATOR, { url, events: ['*'] });
    await disableEndpoint(deps(), OPERATOR, endpoint.id, { reason: 'maintenance' });
    await assert.rejects(
      sendToEndpoint(deps(), OPERATOR, endpoint.id, 'a.b', {}),
      appError('APP_WEBHOOK_ENDPOINT_DISABLED', 409, (e) => {
        assert.match(e.message, /webhooks:enable/);
      }),
    );
    assert.deepEqual(await counts(db.sql), { events: 0, deliveries: 0, jobs: 0 });
  });

  it('refuses an unknown endpoint with 404 APP_WEBHOOK_NOT_FOUND', async () => {
    await assert.rejects(
      sendToEndpoint(deps(), OPERATOR, 'ep_NOPE', 'a.b', {}),
      appError('APP_WEBHOOK_NOT_FOUND', 404),
    );
  });

  it('refuses a bad event name before looking anything up', async () => {
    await assert.rejects(
      sendToEndpoint(deps(), OPERATOR, 'ep_NOPE', 'a.*', {}),
      appError('APP_WEBHOOK_EVENT_INVALID', 422),
    );
  });
});
