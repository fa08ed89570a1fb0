/**
 * Who holds an endpoint to `webhooks.endpointConcurrency` (migrations/024), asked of the claim
 * directly (no worker runs here): a delivery of another endpoint that waits for a WORKER. For an
 * endpoint known to answer quickly, only one that has waited a moment (250 ms) counts; for any
 * other, one ready at all does; deliveries parked for their own endpoint's slots never count.
 * Each case runs in a transaction that is rolled back (its clock, `now()`, stands still), and
 * removes what it wrote outside it.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Sql } from '../../shared/db/connect.ts';
import { claimDeliveries } from '../../worker/delivery/store.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { endpoint, harness, send } from './helpers.ts';

const db = await createTestDatabase();
const h = harness(db, { webhooks: { endpointConcurrency: 2 } });

afterEach(async () => {
  await db.sql`delete from app_webhooks`;
});

describe('who holds an endpoint to its cap', () => {
  /** Five deliveries of a new endpoint, and a claim of all five inside `tx` (one clock: `now()` is the transaction's start). */
  async function claimFive(tx: Sql, quick: boolean): Promise<number> {
    const ep = await endpoint(h, 'http://127.0.0.1:9/five');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(...(await send(h, ep)));
    if (quick) await tx`update app_endpoint_gate set fast_until = now() + interval '1 minute' where endpoint_id = ${ep.id}`;
    const claims = await claimDeliveries(tx, h.config, ids.map((id) => ({ id, withBody: false })));
    return claims.filter((claim) => claim !== null && !('parked' in claim) && !('full' in claim)).length;
  }

  /** Runs `body` in a transaction that is rolled back: nothing it did is seen by the next case. */
  async function inRolledBack(body: (tx: Sql) => Promise<void>): Promise<void> {
    await h.sql.begin(async (tx) => {
      await body(tx as unknown as Sql);
      throw Object.assign(new Error('roll back'), { rollBack: true });
    }).catch((error: { rollBack?: boolean }) => {
      if (!error.rollBack) throw error;
    });
  }

  it('a quick endpoint is not held to its cap by a delivery elsewhere that was ready only a moment ago', async () => {
    await inRolledBack(async (tx) => {
      const [other] = await send(h, await endpoint(h, 'http://127.0.0.1:9/other'));
      await tx`update app_webhook_deliveries set next_attempt_at = now() where id = ${other}`;
      assert.equal(await claimFive(tx, true), 5, 'all five claimed against a cap of two');
    });
  });

  it('an endpoint not known to be quick is held to its cap as soon as a delivery elsewhere is ready', async () => {
    await inRolledBack(async (tx) => {
      const [other] = await send(h, await endpoint(h, 'http://127.0.0.1:9/other'));
      await tx`update app_webhook_deliveries set next_attempt_at = now() where id = ${other}`;
      assert.equal(await claimFive(tx, false), 2, 'two claimed, three parked');
    });
  });

  it('a quick endpoint is held to its cap once a delivery elsewhere has waited for a worker', async () => {
    await inRolledBack(async (tx) => {
      const [other] = await send(h, await endpoint(h, 'http://127.0.0.1:9/other'));
      await tx`update app_webhook_deliveries set next_attempt_at = now() - interval '1 second' where id = ${other}`;
      assert.equal(await claimFive(tx, true), 2, 'two claimed, three parked');
    });
  });

  it('deliveries parked elsewhere (waiting for their own endpoint, not for a worker) hold nobody to a cap', async () => {
    await inRolledBack(async (tx) => {
      const line = await endpoint(h, 'http://127.0.0.1:9/line', { ordering: 'fifo' });
      for (let i = 0; i < 3; i++) await send(h, line);
      await tx`update app_webhook_deliveries set next_attempt_at = now() - interval '1 minute' where endpoint_id = ${line.id} and parked_at is null`;
      const [parked] = await tx<{ n: number }[]>`select count(*)::int as n from app_webhook_deliveries where endpoint_id = ${line.id} and parked_at is not null`;
      assert.equal(parked.n, 2, 'the line: its head queued, two parked behind it');
      await tx`select graphile_worker.remove_job(id) from app_webhook_deliveries where endpoint_id = ${line.id}`;
      await tx`update app_webhook_deliveries set status = 'running', slot = true where endpoint_id = ${line.id} and parked_at is null`;
      assert.equal(await claimFive(tx, false), 5, 'all five claimed against a cap of two');
    });
  });
});
