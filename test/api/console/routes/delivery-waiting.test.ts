/**
 * A delivery parked behind its endpoint (a slow endpoint held to `webhooks.endpointConcurrency`
 * attempts in flight) is pending with no due time: the console's delivery page and `app jobs:show`
 * say it waits for its endpoint and since when, so an operator in an incident is not left with a
 * bare "pending" and no next attempt.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { ALL_TENANTS } from '../../../../shared/access/tenant-scope.ts';
import { showDelivery } from '../../../../shared/webhooks/deliveries/show.ts';
import { registerEndpoint } from '../../../../shared/webhooks/endpoints/index.ts';
import { emitEvent } from '../../../../shared/webhooks/events/index.ts';
import { deliveryText } from '../../../../cli/commands/jobs.ts';
import { eventually } from '../../../helpers/poll.ts';
import { depsOf } from '../../../shared/webhooks/fixtures.ts';
import { startReceiver, type Receiver } from '../../../worker/delivery/receiver.ts';
import { Browser } from '../../accounts/helpers.ts';
import { startConsole } from '../harness.ts';

// attempts hang for 30 s, far longer than the test looks: the one slot stays held meanwhile
const FLAGS = { webhooks: { allowHttp: true, allowPrivate: true, endpointConcurrency: 1, timeout: '30s' } };

const app = await startConsole(FLAGS);
const webhooks = depsOf(app.db, FLAGS);
const held = new Set<ServerResponse>();
let silent: Receiver;
let admin: Browser;

before(async () => {
  silent = await startReceiver((_req, res) => held.add(res));
  const user = await app.user({ role: 'admin', owner: null });
  admin = new Browser(app.base);
  await admin.signIn(user.email);
});

after(async () => {
  await silent.close();
  await app.close();
});

describe('a delivery waiting for its endpoint', () => {
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

    const delivery = await showDelivery(webhooks, ALL_TENANTS, parkedId);
    assert.equal(delivery.status, 'pending');
    assert.equal(delivery.nextAttemptAt, null, 'no due time: it waits for a slot');
    assert.ok(delivery.waitingSince instanceof Date, 'the record says since when it waits');
    assert.match(deliveryText(delivery), /^status: {4}pending \(waiting since \d{4}-\d\d-\d\dT[^ ]+ for its endpoint/m);

    const page = await admin.request('GET', `/deliveries/${parkedId}`, { html: true });
    assert.equal(page.status, 200, page.text);
    const status = /<dd id="delivery-status">([\s\S]*?)<\/dd>/.exec(page.text)?.[1].replace(/<[^>]+>/g, '') ?? '';
    assert.match(status, /pending\s+waiting since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC for its endpoint to take it/);
  });
});
