/**
 * An endpoint's health (shared/webhooks/deliveries/health.ts): the last 24 hours' attempts and
 * their success rate, the last failure and the pending and dead counts, each of the endpoint's
 * owner's own deliveries. An endpoint moved to another tenant shows the new one nothing of what
 * the earlier one sent through it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { tenantActor } from '../../../helpers/actors.ts';
import { endpointHealth } from '../../../../shared/webhooks/deliveries/health.ts';
import { updateEndpoint } from '../../../../shared/webhooks/endpoints/index.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { seedAttempts } from '../../../helpers/attempt-history.ts';
import { endpoint, harness } from '../../../worker/helpers.ts';

const db = await createTestDatabase();
const h = harness(db);
const MINUTE = 60_000;
const ago = (ms: number) => new Date(Date.now() - ms);

describe('endpoint health', () => {
  it("counts the endpoint's owner's deliveries alone: moved to another tenant, it shows none of the earlier one's", async () => {
    const ep = await endpoint(h, 'http://127.0.0.1:9/', { owner: 'health-before' });
    const [failed] = await seedAttempts(h.sql, ep, [
      [{ at: ago(30 * MINUTE), outcome: 'dead', durationMs: 5 }],
      [{ at: ago(20 * MINUTE), outcome: 'done', durationMs: 5 }],
    ]);
    const before = (await endpointHealth(h, tenantActor('health-before'), [ep.id])).get(ep.id);
    assert.deepEqual(
      [before?.attempts24h, before?.succeeded24h, before?.dead, before?.lastFailureDeliveryId],
      [2, 1, 1, failed],
    );

    await updateEndpoint(h, OPERATOR, ep.id, { owner: 'health-after' });
    const [own] = await seedAttempts(h.sql, { id: ep.id, owner: 'health-after' }, [
      [{ at: ago(10 * MINUTE), outcome: 'done', durationMs: 5 }],
    ]);
    assert.ok(own);
    const after = (await endpointHealth(h, tenantActor('health-after'), [ep.id])).get(ep.id);
    assert.deepEqual(
      [after?.attempts24h, after?.succeeded24h, after?.dead, after?.lastFailure, after?.lastFailureDeliveryId],
      [1, 1, 0, null, null],
      "the earlier tenant's attempts, dead delivery and failure are not the new one's",
    );
    assert.equal(
      (await endpointHealth(h, tenantActor('health-before'), [ep.id])).size,
      0,
      "nor is the endpoint the earlier tenant's any more",
    );
    const admin = (await endpointHealth(h, OPERATOR, [ep.id])).get(ep.id);
    assert.equal(admin?.attempts24h, 1, "an endpoint's health is its current owner's, for an admin too");
  });
});
