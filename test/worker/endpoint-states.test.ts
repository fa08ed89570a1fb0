/**
 * Deliveries whose endpoint or secret changed while they were pending (bad input and faults,
 * secrets sealed at rest): they are not sent, they end with a reason the operator can
 * read, and nothing loops.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from './delivery/receiver.ts';
import { deliveryRow, endpoint, harness, jobRows, runOnce, send, type Harness } from './helpers.ts';
import { retryDelivery, showDelivery } from '../../shared/webhooks/deliveries/index.ts';
import {
  disableEndpoint,
  removeEndpoint,
  rotateSecret,
  updateEndpoint,
} from '../../shared/webhooks/endpoints/index.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

const db = await createTestDatabase();
const h: Harness = harness(db);

describe('endpoint and secret changes while deliveries are pending', () => {
  const receivers: Receiver[] = [];
  const receiver = async () => {
    const started = await startReceiver((_req, res) => res.end('ok'));
    receivers.push(started);
    return started;
  };
  after(async () => {
    for (const r of receivers) await r.close();
  });

  it('an endpoint disabled while its deliveries are pending: they are not sent and are dead with the reason', async () => {
    const server = await receiver();
    const ep = await endpoint(h, `${server.origin}/`);
    const ids = [...(await send(h, ep)), ...(await send(h, ep))];
    await disableEndpoint({ config: h.config, sql: h.sql, log: h.log }, OPERATOR, ep.id, {
      reason: 'customer offboarded',
    });
    await runOnce(h);
    assert.equal(server.requests.length, 0);
    for (const id of ids) {
      const row = (await deliveryRow(h, id))!;
      assert.equal(row.status, 'dead');
      assert.equal(row.attempts, 0, 'no attempt was made');
      assert.equal(row.last_error, `not sent: endpoint ${ep.id} is disabled (customer offboarded)`);
      assert.equal((await jobRows(h, id)).length, 0);
    }
  });

  it("an endpoint moved to another owner while its deliveries are pending: the earlier owner's events are not sent to it", async () => {
    const server = await receiver();
    const ep = await endpoint(h, `${server.origin}/`);
    const ids = await send(h, ep);
    const newOwner = `${ep.owner}-next`;
    await updateEndpoint({ config: h.config, sql: h.sql, log: h.log }, OPERATOR, ep.id, { owner: newOwner });
    const [next] = await send(h, { owner: newOwner });
    await runOnce(h);
    assert.equal(server.requests.length, 1, "only the new owner's event reached the receiver");
    assert.equal(JSON.parse(server.requests[0].body.toString()).type, 'order.created');
    assert.equal(server.requests[0].headers['webhook-id'], next);
    const [id] = ids;
    const row = (await deliveryRow(h, id))!;
    assert.equal(row.status, 'dead');
    assert.equal(row.attempts, 0, 'no attempt was made');
    assert.equal(
      row.last_error,
      `not sent: endpoint ${ep.id} was moved to another owner after this delivery's event was emitted`,
    );
    assert.equal((await jobRows(h, id)).length, 0);
  });

  it('an endpoint removed while its deliveries are pending: nothing is sent, the jobs end, the worker carries on', async () => {
    const server = await receiver();
    const ep = await endpoint(h, `${server.origin}/`);
    const [id] = await send(h, ep);
    await removeEndpoint({ config: h.config, sql: h.sql, log: h.log }, OPERATOR, ep.id);
    assert.equal(await deliveryRow(h, id), undefined, 'removing an endpoint removes its deliveries');
    const other = await receiver();
    const kept = await endpoint(h, `${other.origin}/`);
    const [next] = await send(h, kept);
    await runOnce(h);
    assert.equal(server.requests.length, 0);
    assert.equal((await jobRows(h, id)).length, 0, 'the orphaned job ended');
    assert.equal((await deliveryRow(h, next))!.status, 'done', 'and the worker went on delivering');
  });

  it('the application secret changed: the delivery is dead with APP_WEBHOOK_SECRET_UNREADABLE (shown by jobs show), no crash loop; rotate and jobs:retry deliver it', async () => {
    const before = harness(db, { secret: 'the-old-application-secret' });
    const afterChange = harness(db, { secret: 'the-new-application-secret' });
    const server = await receiver();
    const ep = await endpoint(before, `${server.origin}/`);
    const [id] = await send(before, ep);
    await runOnce(afterChange);
    assert.equal(server.requests.length, 0);
    const details = await showDelivery({ sql: h.sql, config: h.config }, OPERATOR, id);
    assert.equal(details.status, 'dead');
    assert.match(
      details.lastError!,
      /^APP_WEBHOOK_SECRET_UNREADABLE: the signing secret of webhook endpoint ep_\w+ cannot be read/,
    );
    assert.match(details.lastError!, /webhooks:rotate/, 'the error names the remedy');
    assert.equal(details.attemptsMade.length, 0);
    assert.equal((await jobRows(h, id)).length, 0, 'no failed job left behind to loop on');

    await rotateSecret({ config: afterChange.config, sql: h.sql, log: h.log }, OPERATOR, ep.id);
    await retryDelivery({ sql: h.sql, config: h.config, log: h.log }, OPERATOR, id);
    await runOnce(afterChange);
    assert.equal((await deliveryRow(h, id))!.status, 'done');
    assert.equal(server.requests.length, 1);
    assert.equal(server.requests[0].headers['webhook-id'], id);
  });
});
