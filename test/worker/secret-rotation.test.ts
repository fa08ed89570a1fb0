/**
 * The promise of a zero-downtime rotation of the application secret: an endpoint registered
 * under secret A (its signing secret and header value sealed under A) keeps receiving deliveries
 * from a worker started with secret B and `previousSecrets: [A]`, signed so that the receiver's
 * Standard Webhooks library accepts them with the endpoint's secret, its header value sent as
 * given. Without A listed, the delivery still dies with APP_WEBHOOK_SECRET_UNREADABLE (the
 * documented behaviour of a secret nobody kept).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createTestDatabase } from '../helpers/database.ts';
import { receiver } from './delivery/harness.ts';
import { endpoint, harness, send, settled, worker } from './helpers.ts';

const A = 'the application secret before the rotation, 40 characters';
const B = 'the application secret after the rotation, 40 characters!';
const HEADER_VALUE = 'key-sealed-under-the-old-secret';

/** A receiver answering 200 to every request (each kept in `requests`). */
const answering = () => receiver((_req, res) => res.end('ok'));

/** Registers an endpoint with a header value under secret A, and emits one event to it. */
async function registeredUnderA(url: string) {
  const db = await createTestDatabase();
  const before = harness(db, { secret: A });
  const ep = await endpoint(before, url, { headers: { 'X-Api-Key': HEADER_VALUE } });
  const [id] = await send(before, ep);
  return { db, ep, id };
}

describe('rotating the application secret while deliveries flow', () => {
  it('a worker with secret B and previousSecrets [A] delivers what was sealed under A: header value sent, signature verified, nothing dead', async () => {
    const server = await answering();
    const { db, ep, id } = await registeredUnderA(`${server.origin}/hook`);
    const rotated = harness(db, { secret: B, previousSecrets: [A] });
    const running = await worker(rotated);

    // settled first: a delivery that went dead instead fails here at once, with its reason
    const row = await settled(rotated, id, ['done', 'dead']);
    assert.equal(row.status, 'done', `the delivery went ${row.status}: ${row.last_error}`);
    assert.equal(row.last_error, null);
    assert.equal(server.requests.length, 1);
    const [received] = server.requests;
    assert.equal(received.headers['x-api-key'], HEADER_VALUE);
    assert.equal(received.headers['webhook-id'], id);
    const verified = new Webhook(ep.secret).verify(
      received.body.toString(),
      received.headers as Record<string, string>,
    );
    assert.equal((verified as { type: string }).type, 'order.created');
    const [dead] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from app_webhook_deliveries where endpoint_id = ${ep.id} and status = 'dead'`;
    assert.equal(dead.n, 0, 'nothing went dead');
    await running.stop();
  });

  it('a worker with secret B alone cannot open what A sealed: the delivery dies with APP_WEBHOOK_SECRET_UNREADABLE, nothing is sent', async () => {
    const server = await answering();
    const { db, id } = await registeredUnderA(`${server.origin}/hook`);
    const changed = harness(db, { secret: B });
    const running = await worker(changed);

    const row = await settled(changed, id, ['done', 'dead']);
    assert.equal(row.status, 'dead');
    assert.match(row.last_error ?? '', /^APP_WEBHOOK_SECRET_UNREADABLE: the signing secret of webhook endpoint ep_\w+/);
    assert.equal(server.requests.length, 0, 'the receiver got nothing');
    await running.stop();
  });
});
