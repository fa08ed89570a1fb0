/**
 * The run rows of quick claims (migrations/029), asked of the claim, the record and the sweep's
 * query directly (no worker runs here): a claim that takes no gate lock holds its slot in a run
 * row and leaves the delivery's row as it was; the record removes the run; runs count as slots
 * held, and a run of half a second holds its endpoint to its cap; the sweep shows a long run
 * `running` and drops the run of a delivery that is finished.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import {
  claimDeliveries,
  recordAttempts,
  sweepRuns,
  type ClaimedDelivery,
} from '../../../../shared/webhooks/deliveries/store.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { endpoint, harness, send } from '../../../worker/helpers.ts';
import { quickAttempt } from './attempt-record.ts';

const db = await createTestDatabase();
const h = harness(db, { webhooks: { endpointConcurrency: 2 } });

afterEach(async () => {
  await db.sql`delete from app_webhooks`;
  await db.sql`delete from app_delivery_runs`;
});

/** An endpoint known to answer quickly (its gate's `fast_until` ahead), with `count` deliveries. */
async function quickEndpoint(count: number): Promise<{ endpointId: string; ids: string[] }> {
  const ep = await endpoint(h, 'http://127.0.0.1:9/quick');
  await h.sql`update app_endpoint_gate set fast_until = now() + interval '1 minute' where endpoint_id = ${ep.id}`;
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(...(await send(h, ep)));
  return { endpointId: ep.id, ids };
}

async function rowOf(id: string) {
  const [row] = await h.sql<{ status: string; slot: boolean; version: string }[]>`
    select status, slot, ctid::text as version from app_webhook_deliveries where id = ${id}`;
  return row;
}

const runsOf = async (endpointId: string) =>
  (await h.sql<{ n: number }[]>`select count(*)::int as n from app_delivery_runs where endpoint_id = ${endpointId}`)[0]
    .n;

const claimAll = (ids: string[]) =>
  claimDeliveries(
    h.sql,
    h.config,
    ids.map((id) => ({ id, withBody: false })),
  );

const isClaimed = (claim: unknown): claim is ClaimedDelivery =>
  claim !== null && !('parked' in (claim as object)) && !('full' in (claim as object));

describe('run rows of quick claims', () => {
  it("a quick endpoint's claim holds its slot in a run row and leaves the delivery's row as it was; the record removes the run", async () => {
    const { endpointId, ids } = await quickEndpoint(1);
    const before = await rowOf(ids[0]);
    const [claim] = await claimAll(ids);
    assert.ok(isClaimed(claim), 'claimed');
    assert.equal(claim.slot, true, 'it holds a slot, to give back when recorded');
    assert.equal(await runsOf(endpointId), 1, 'one run row');
    assert.deepEqual(await rowOf(ids[0]), before, 'the delivery row is not rewritten: same version, still pending');

    const [written] = await recordAttempts(h.sql, [
      quickAttempt(ids[0], endpointId, { priorAttempts: claim.attempts, release: claim.slot }),
    ]);
    assert.equal(written, true);
    assert.equal(await runsOf(endpointId), 0, 'the run row went with the record');
    assert.equal((await rowOf(ids[0])).status, 'done');
  });

  it("a new endpoint's claim marks its delivery running on its row, with no run row", async () => {
    const ep = await endpoint(h, 'http://127.0.0.1:9/new');
    const [id] = await send(h, ep);
    const [claim] = await claimAll([id]);
    assert.ok(isClaimed(claim));
    assert.deepEqual(
      { status: (await rowOf(id)).status, slot: (await rowOf(id)).slot },
      { status: 'running', slot: true },
    );
    assert.equal(await runsOf(ep.id), 0);
  });

  it('runs count as slots held: with one running for half a second, the endpoint is held to its cap', async () => {
    const { ids } = await quickEndpoint(5);
    const first = await claimAll(ids.slice(0, 3));
    assert.equal(first.filter(isClaimed).length, 3, 'a quick endpoint is not held: three claimed against a cap of two');
    await h.sql`update app_delivery_runs set started_at = now() - interval '1 second' where delivery_id = ${ids[0]}`;
    const second = await claimAll(ids.slice(3));
    assert.equal(second.filter(isClaimed).length, 0, 'three slots held by runs, a cap of two: none more');
    assert.equal(second.filter((claim) => claim !== null && 'parked' in claim).length, 2, 'both parked');
  });

  it('the sweep shows a run of half a second running, and drops the run of a finished delivery', async () => {
    const { endpointId, ids } = await quickEndpoint(2);
    assert.equal((await claimAll(ids)).filter(isClaimed).length, 2);
    await h.sql`update app_delivery_runs set started_at = now() - interval '1 second' where delivery_id = ${ids[0]}`;
    await h.sql`update app_webhook_deliveries set status = 'dead', completed_at = now() where id = ${ids[1]}`;
    assert.deepEqual(await sweepRuns(h.sql), { shown: 1, dropped: 1 });
    assert.equal((await rowOf(ids[0])).status, 'running', 'the long run is shown running');
    assert.equal(await runsOf(endpointId), 1, "the long run keeps its row; the dead delivery's run is gone");
    assert.deepEqual(await sweepRuns(h.sql), { shown: 0, dropped: 0 }, 'nothing more to do');
  });
});
