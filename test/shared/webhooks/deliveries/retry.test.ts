/**
 * A retry that is refused says what to do instead (shared/webhooks/deliveries/retry.ts): only dead
 * deliveries are retried, so a delivered one is pointed to the resend that sends it again, and one
 * still on its way is said to need nothing; every face (REST, GraphQL, the console, the CLI)
 * answers this one message.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { isAppError } from '../../../../shared/errors/app-error.ts';
import { resendDelivery, retryDelivery } from '../../../../shared/webhooks/deliveries/retry.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { endpoint, harness, send } from '../../../worker/helpers.ts';

const db = await createTestDatabase();
const h = harness(db);

/** One delivery to an endpoint of its own, put in `status`. */
async function deliveryIn(status: 'pending' | 'done'): Promise<string> {
  const { owner } = await endpoint(h, `https://hooks.example.com/retry/${status}`);
  const [id] = await send(h, { owner });
  if (status === 'done')
    await h.sql`update app_webhook_deliveries set status = 'done', completed_at = now() where id = ${id}`;
  return id;
}

/** The refusal of `attempt`, which must be a 409 with `code`. */
async function refusal(attempt: Promise<unknown>, code: string): Promise<string> {
  const error = await attempt.then(
    () => assert.fail('the retry was not refused'),
    (thrown: unknown) => thrown,
  );
  assert.ok(isAppError(error), String(error));
  assert.equal(error.status, 409);
  assert.equal(error.code, code);
  return error.message;
}

describe('a refused retry says what to do instead', () => {
  it('retrying a done delivery names the resend that sends it again', async () => {
    const id = await deliveryIn('done');
    const message = await refusal(retryDelivery(h, OPERATOR, id), 'APP_WEBHOOK_DELIVERY_NOT_DEAD');
    assert.match(message, /is done, not dead: only dead deliveries are retried/);
    assert.match(message, new RegExp(`resend it \\(app jobs:resend ${id}\\)`));
    const resent = await resendDelivery(h, OPERATOR, id);
    assert.equal(resent.status, 'pending', 'the resend it names is taken');
  });

  it('retrying a pending delivery says it is still on its way, and offers no resend, which is refused too', async () => {
    const id = await deliveryIn('pending');
    const message = await refusal(retryDelivery(h, OPERATOR, id), 'APP_WEBHOOK_DELIVERY_NOT_DEAD');
    assert.match(message, /is pending, not dead: only dead deliveries are retried, and this one is still on its way/);
    assert.doesNotMatch(message, /resend/);
    await refusal(resendDelivery(h, OPERATOR, id), 'APP_WEBHOOK_DELIVERY_IN_FLIGHT');
  });
});
