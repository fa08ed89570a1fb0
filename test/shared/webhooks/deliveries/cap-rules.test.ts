/**
 * Who is held to `webhooks.endpointConcurrency` (migrations/024), asked of the claim directly (no
 * worker runs here): an endpoint not known to answer quickly (new, slow in the last minute, or
 * with an attempt running for half a second), whatever the others do; an endpoint known to answer
 * quickly never, whatever waits elsewhere. Each case runs in a transaction that is rolled back,
 * and removes what it wrote outside it.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Sql } from '../../../../shared/db/connect.ts';
import { claimDeliveries } from '../../../../shared/webhooks/deliveries/store.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { endpoint, harness, send } from '../../../worker/helpers.ts';

const db = await createTestDatabase();
const h = harness(db, { webhooks: { endpointConcurrency: 2 } });

afterEach(async () => {
  await db.sql`delete from app_webhooks`;
});

/** Runs `body` in a transaction that is rolled back: nothing it did is seen by the next case. */
async function inRolledBack(body: (tx: Sql) => Promise<void>): Promise<void> {
  await h.sql
    .begin(async (tx) => {
      await body(tx as unknown as Sql);
      throw Object.assign(new Error('roll back'), { rollBack: true });
    })
    .catch((error: { rollBack?: boolean }) => {
      if (!error.rollBack) throw error;
    });
}

/**
 * Five deliveries of a new endpoint, its gate set by `gate` (SQL run inside `tx` with the
 * endpoint's id), and a claim of all five inside `tx`: how many were claimed (the rest parked).
 */
async function claimFive(tx: Sql, gate: (endpointId: string) => Promise<unknown> = async () => {}): Promise<number> {
  const ep = await endpoint(h, 'http://127.0.0.1:9/five');
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push(...(await send(h, ep)));
  await gate(ep.id);
  const claims = await claimDeliveries(
    tx,
    h.config,
    ids.map((id) => ({ id, withBody: false })),
  );
  return claims.filter((claim) => claim !== null && !('parked' in claim) && !('full' in claim)).length;
}

const quick = (tx: Sql) => (endpointId: string) =>
  tx`update app_endpoint_gate set fast_until = now() + interval '1 minute' where endpoint_id = ${endpointId}`;

describe('who is held to the endpoint cap', () => {
  it('a new endpoint (not known to answer quickly) is held to its cap, even alone', async () => {
    await inRolledBack(async (tx) => {
      assert.equal(await claimFive(tx), 2, 'two claimed, three parked');
    });
  });

  it('an endpoint known to answer quickly is not held, alone', async () => {
    await inRolledBack(async (tx) => {
      assert.equal(await claimFive(tx, quick(tx)), 5, 'all five claimed against a cap of two');
    });
  });

  it('an endpoint known to answer quickly is not held while deliveries of other endpoints wait, ready or parked', async () => {
    await inRolledBack(async (tx) => {
      const [ready] = await send(h, await endpoint(h, 'http://127.0.0.1:9/other'));
      await tx`update app_webhook_deliveries set next_attempt_at = now() - interval '1 minute' where id = ${ready}`;
      const line = await endpoint(h, 'http://127.0.0.1:9/line', { ordering: 'fifo' });
      for (let i = 0; i < 3; i++) await send(h, line);
      const [parked] = await tx<
        { n: number }[]
      >`select count(*)::int as n from app_webhook_deliveries where endpoint_id = ${line.id} and parked_at is not null`;
      assert.equal(parked.n, 2, 'a FIFO line: its head queued, two parked behind it');
      assert.equal(await claimFive(tx, quick(tx)), 5, 'all five claimed against a cap of two');
    });
  });

  it('an endpoint slow in the last minute is held to its cap, though it answered quickly since', async () => {
    await inRolledBack(async (tx) => {
      const slow = (endpointId: string) =>
        tx`update app_endpoint_gate set fast_until = now() + interval '1 minute', slow_until = now() + interval '1 minute' where endpoint_id = ${endpointId}`;
      assert.equal(await claimFive(tx, slow), 2, 'two claimed, three parked');
    });
  });

  it('an endpoint with an attempt running for half a second is held to its cap, though it answered quickly', async () => {
    await inRolledBack(async (tx) => {
      const running = async (endpointId: string) => {
        await quick(tx)(endpointId);
        const [oldest] = await tx<
          { id: string }[]
        >`select id from app_webhook_deliveries where endpoint_id = ${endpointId} order by id limit 1`;
        await tx`update app_webhook_deliveries set status = 'running', slot = true, updated_at = now() - interval '1 second' where id = ${oldest.id}`;
      };
      // the oldest is running already (it keeps its slot and is answered as claimed again); of the
      // four others one more takes the second slot
      assert.equal(await claimFive(tx, running), 2, 'the running one and one more; three parked');
    });
  });
});
