/**
 * Endpoint gates (shared/webhooks/deliveries/flow.ts, migrations/014): claims over the cap park
 * deliveries without a job; a FIFO endpoint's emits are parked in emit order with only the head
 * queued; the recovery sweep wakes what a dead process left parked behind free slots. The
 * endpoints here never answered, so the cap applies (an endpoint known to answer quickly is not
 * capped: cap-rules.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gatesToWake } from '../../../../shared/webhooks/deliveries/flow.ts';
import { sweep } from '../../../../worker/heartbeat.ts';
import { claimDeliveries } from '../../../../shared/webhooks/deliveries/store.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { endpoint, harness, jobRows, send, slotsOf } from '../../../worker/helpers.ts';

const db = await createTestDatabase();
const h = harness(db, { webhooks: { endpointConcurrency: 2 } });

const gateOf = (endpointId: string) => slotsOf(db, endpointId);

describe('endpoint gates', () => {
  it('a claim over the cap parks the delivery: pending, no attempt, counted as waiting, oldest ones granted first', async () => {
    const ep = await endpoint(h, 'http://127.0.0.1:9/');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(...(await send(h, ep)));
    const claimed = await claimDeliveries(
      h.sql,
      h.config,
      [...ids].reverse().map((id) => ({ id, withBody: false })),
    );
    const granted = claimed
      .filter((c) => c !== null && !('parked' in c))
      .map((c) => c!.id)
      .sort();
    assert.deepEqual(granted, ids.slice(0, 2), 'the two oldest take the two slots');
    assert.deepEqual(await gateOf(ep.id), { running: 2, waiting: 3 });
    const rows = await db.sql<{ id: string; status: string; attempts: number; parked: boolean }[]>`
      select id, status, attempts, parked_at is not null as parked from app_webhook_deliveries where id = any(${ids}) order by id`;
    assert.deepEqual(
      rows.filter((row) => row.parked).map((row) => row.status),
      ['pending', 'pending', 'pending'],
    );
    assert.ok(rows.every((row) => row.attempts === 0));
    const again = await claimDeliveries(
      h.sql,
      h.config,
      ids.slice(2).map((id) => ({ id, withBody: false })),
    );
    assert.deepEqual(
      again,
      [null, null, null],
      'a parked delivery whose job runs again stays parked: only a wake queues it',
    );
  });

  it('a FIFO endpoint: each emit is parked in emit order, the head alone is queued', async () => {
    const ep = await endpoint(h, 'http://127.0.0.1:9/', { ordering: 'fifo' });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(...(await send(h, ep)));
    const jobs = await jobRows(h);
    const queued = ids.filter((id) => jobs.some((job) => job.key === id));
    assert.deepEqual(queued, [ids[0]], 'only the first has a job');
    assert.deepEqual(await gateOf(ep.id), { running: 1, waiting: 3 });
    const seqs = await db.sql<
      { seq: string }[]
    >`select seq from app_webhook_deliveries where id = any(${ids}) order by seq`;
    assert.equal(seqs.length, 4);
  });

  it('the recovery sweep wakes deliveries parked behind slots given back by a process that died before its wake', async () => {
    const ep = await endpoint(h, 'http://127.0.0.1:9/');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(...(await send(h, ep)));
    await claimDeliveries(
      h.sql,
      h.config,
      ids.map((id) => ({ id, withBody: false })),
    );
    assert.deepEqual(await gateOf(ep.id), { running: 2, waiting: 2 });
    // the two in flight finish, but their process dies before the wake it owed
    await db.sql`update app_webhook_deliveries set status = 'done', slot = false where id = any(${ids.slice(0, 2)})`;
    assert.ok((await gatesToWake(h.sql, h.config)).includes(ep.id));
    const result = await sweep(h);
    assert.ok(result.woken >= 2, JSON.stringify(result));
    assert.deepEqual(await gateOf(ep.id), { running: 2, waiting: 0 });
    const jobs = await jobRows(h);
    assert.deepEqual(
      ids.slice(2).filter((id) => jobs.some((job) => job.key === id)),
      ids.slice(2),
      'both woken deliveries are queued',
    );
    assert.equal((await gatesToWake(h.sql, h.config)).includes(ep.id), false);
  });
});
