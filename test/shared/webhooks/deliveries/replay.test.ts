/**
 * Replaying dead deliveries over several endpoints (shared/webhooks/deliveries/replay.ts) is made
 * of rounds that each commit. Inside a request past its `requestTimeout` after a round committed
 * (the client waits for the real answer), the replay stops at the next round and says more remain;
 * replaying again goes on from there. Outside a request, and within the deadline, it goes to the end.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { commitDeadline, withDeadline } from '../../../../shared/db/commit-deadline.ts';
import { replayDeadDeliveries } from '../../../../shared/webhooks/deliveries/replay.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { endpoint, harness, send } from '../../../worker/helpers.ts';

const db = await createTestDatabase();
const h = harness(db);

/** Two endpoints of `owner`, each with one dead delivery. */
async function twoDeadEndpoints(owner: string): Promise<string[]> {
  const ids: string[] = [];
  for (const path of ['a', 'b']) {
    await endpoint(h, `https://hooks.example.com/${owner}/${path}`, { owner });
  }
  ids.push(...(await send(h, { owner })));
  assert.equal(ids.length, 2);
  await h.sql`update app_webhook_deliveries set status = 'dead', completed_at = now() where id = any(${ids})`;
  return ids;
}

const deadCount = async (ids: string[]) =>
  (
    await h.sql<
      { n: number }[]
    >`select count(*)::int as n from app_webhook_deliveries where id = any(${ids}) and status = 'dead'`
  )[0].n;

describe('replaying dead deliveries in rounds', () => {
  it('a request past its deadline after a committed round stops at the next round and says more remain', async () => {
    const ids = await twoDeadEndpoints('overdue');
    const deadline = commitDeadline();
    // what the timeout does when its timer fires after a write of the request claimed its commit
    assert.equal(deadline.claimCommit(), true);
    assert.equal(deadline.expire(), false, 'a claimed commit: the answer is the real one');
    assert.equal(deadline.overdue, true);
    const first = await withDeadline(deadline, () => replayDeadDeliveries(h, OPERATOR, { owner: 'overdue' }));
    assert.deepEqual(first, { recovered: 1, more: true }, 'one round, then the answer');
    assert.equal(await deadCount(ids), 1, 'the other endpoint waits for the next replay');
    const again = await replayDeadDeliveries(h, OPERATOR, { owner: 'overdue' });
    assert.deepEqual(again, { recovered: 1, more: false });
    assert.equal(await deadCount(ids), 0);
  });

  it('within the deadline, every endpoint is replayed in one call', async () => {
    const ids = await twoDeadEndpoints('in-time');
    const deadline = commitDeadline();
    const result = await withDeadline(deadline, () => replayDeadDeliveries(h, OPERATOR, { owner: 'in-time' }));
    assert.deepEqual(result, { recovered: 2, more: false });
    assert.equal(await deadCount(ids), 0);
    assert.equal(deadline.expire(), false, 'its rounds claimed the commit');
  });
});
