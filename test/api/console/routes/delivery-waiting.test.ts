/**
 * When a pending delivery goes next, for an operator in an incident. One parked behind its
 * endpoint (a slow endpoint held to `webhooks.endpointConcurrency` attempts in flight) has no due
 * time: the console's delivery page, its endpoint's deliveries and `app jobs:show` say it waits
 * for its endpoint and since when, not a bare "pending". One waiting for its retry: the endpoint's
 * deliveries give the time of its next attempt, as its own page does.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { showDelivery } from '../../../../shared/webhooks/deliveries/show.ts';
import { registerEndpoint } from '../../../../shared/webhooks/endpoints/index.ts';
import { emitEvent } from '../../../../shared/webhooks/events/index.ts';
import { deliveryText } from '../../../../cli/commands/jobs.ts';
import { eventually } from '../../../helpers/poll.ts';
import { depsOf } from '../../../shared/webhooks/fixtures.ts';
import { startReceiver, type Receiver } from '../../../worker/delivery/receiver.ts';
import { Browser } from '../../accounts/helpers.ts';
import { startConsole } from '../harness.ts';

// attempts hang for 30 s, far longer than the test looks: the one slot stays held meanwhile; a
// failed attempt's retry is an hour away
const FLAGS = {
  webhooks: {
    allowHttp: true,
    allowPrivate: true,
    endpointConcurrency: 1,
    timeout: '30s',
    backoff: { base: '1h', factor: 1, max: '1h', jitter: 0 },
  },
};

const app = await startConsole(FLAGS);
const webhooks = depsOf(app.db, FLAGS);
const held = new Set<ServerResponse>();
let silent: Receiver;
let failing: Receiver;
let admin: Browser;

before(async () => {
  silent = await startReceiver((_req, res) => held.add(res));
  failing = await startReceiver((_req, res) => {
    res.statusCode = 500;
    res.end('down');
  });
  const user = await app.user({ role: 'admin', owner: null });
  admin = new Browser(app.base);
  await admin.signIn(user.email);
});

after(async () => {
  await silent.close();
  await failing.close();
  await app.close();
});

/** The text of the Status cell of delivery `id` in the deliveries of endpoint `endpointId`'s page. */
async function statusCell(endpointId: string, id: string): Promise<string> {
  const page = await admin.request('GET', `/endpoints/${endpointId}`, { html: true });
  assert.equal(page.status, 200, page.text);
  const row = new RegExp(`<tr>\\s*<td><a href="/deliveries/${id}">[\\s\\S]*?</td>\\s*<td>([\\s\\S]*?)</td>`).exec(
    page.text,
  );
  assert.ok(row, `the delivery ${id} is listed`);
  return row[1]
    .replace(/<[^>]+>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

describe('when a pending delivery goes next', () => {
  it('says on its console page and in jobs:show that it waits for its endpoint, and since when', async () => {
    const endpoint = await registerEndpoint(webhooks, OPERATOR, { url: `${silent.origin}/hook`, events: ['*'] });
    for (let n = 0; n < 3; n += 1) await emitEvent(webhooks, OPERATOR, { type: 'order.created', data: { n } });
    const parkedId = await eventually(
      async () => {
        const [row] = await app.db.sql<{ id: string }[]>`
          select id from app_webhook_deliveries
           where endpoint_id = ${endpoint.id} and status = 'pending' and parked_at is not null limit 1`;
        return row?.id;
      },
      20_000,
      'a delivery parked behind the endpoint held to one attempt in flight',
    );

    const delivery = await showDelivery(webhooks, OPERATOR, parkedId);
    assert.equal(delivery.status, 'pending');
    assert.equal(delivery.nextAttemptAt, null, 'no due time: it waits for a slot');
    assert.ok(delivery.waitingSince instanceof Date, 'the record says since when it waits');
    assert.match(deliveryText(delivery), /^status: {4}pending \(waiting since \d{4}-\d\d-\d\dT[^ ]+ for its endpoint/m);

    const page = await admin.request('GET', `/deliveries/${parkedId}`, { html: true });
    assert.equal(page.status, 200, page.text);
    const status = /<dd id="delivery-status">([\s\S]*?)<\/dd>/.exec(page.text)?.[1].replace(/<[^>]+>/g, '') ?? '';
    assert.match(status, /pending\s+waiting since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC for its endpoint to take it/);

    assert.match(
      await statusCell(endpoint.id, parkedId),
      /^pending\s+waiting for its endpoint since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/,
    );
  });

  it("gives a retry's next attempt in its endpoint's deliveries", async () => {
    const endpoint = await registerEndpoint(webhooks, OPERATOR, {
      url: `${failing.origin}/hook`,
      events: ['*'],
      owner: 'retrying',
    });
    const emitted = await emitEvent(webhooks, OPERATOR, { type: 'order.created', owner: 'retrying', data: {} });
    const id = emitted.deliveries[0].id;
    await eventually(
      async () => (await showDelivery(webhooks, OPERATOR, id)).attempts === 1,
      20_000,
      'the first attempt failed',
    );
    const next = (await showDelivery(webhooks, OPERATOR, id)).nextAttemptAt;
    assert.ok(next, 'a retry is due');
    const shown = `${next.toISOString().slice(0, 10)} ${next.toISOString().slice(11, 19)} UTC`;
    assert.equal(await statusCell(endpoint.id, id), `pending next attempt at ${shown}`);
  });
});
