/**
 * The pure parts of one delivery run: the job payload, the request headers and the attempts
 * budget (`webhooks.maxAttempts`).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { generateSecret } from '../../shared/webhooks/signing.ts';
import { attemptInSeries, decide, deliveryHeaders, parseDeliveryPayload } from '../../worker/delivery/deliver.ts';
import { USER_AGENT } from '../../worker/delivery/user-agent.ts';
import { createLogger } from '../../shared/log/logger.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { linesInto } from '../helpers/logs.ts';
import { harness, jobRows, runOnce } from './helpers.ts';

const db = await createTestDatabase();

describe('parseDeliveryPayload', () => {
  it('accepts the payload emit writes and the one the worker writes for a retry', () => {
    assert.deepEqual(parseDeliveryPayload({ deliveryId: 'msg_1', endpointId: 'ep_1', event: 'a.b', body: '{}' }), {
      deliveryId: 'msg_1',
      endpointId: 'ep_1',
      event: 'a.b',
      body: '{}',
    });
    assert.deepEqual(
      parseDeliveryPayload({ deliveryId: 'msg_1', endpointId: 'ep_1', event: 'a.b', priorAttempts: 8 }),
      { deliveryId: 'msg_1', endpointId: 'ep_1', event: 'a.b', priorAttempts: 8 },
    );
  });

  for (const [name, payload] of [
    ['null', null],
    ['a string', '{"deliveryId":"msg_1"}'],
    ['no delivery id', { endpointId: 'ep_1', event: 'a.b' }],
    ['an empty delivery id', { deliveryId: '', endpointId: 'ep_1', event: 'a.b' }],
    ['a body that is not text', { deliveryId: 'msg_1', endpointId: 'ep_1', event: 'a.b', body: { a: 1 } }],
    ['a negative priorAttempts', { deliveryId: 'msg_1', endpointId: 'ep_1', event: 'a.b', priorAttempts: -1 }],
  ] as const) {
    it(`refuses a payload with ${name}`, () => assert.equal(parseDeliveryPayload(payload), null));
  }
});

describe('deliveryHeaders', () => {
  it("signs with every secret, one v1 entry each, and keeps the service's own headers whatever the endpoint's say", () => {
    const secrets = [generateSecret(), generateSecret()];
    const body = '{"data":{},"id":"msg_1","timestamp":"2026-01-01T00:00:00.000Z","type":"a.b"}';
    const headers = deliveryHeaders({
      id: 'msg_1',
      body,
      secrets,
      endpointHeaders: { 'X-Tenant': 'acme', 'Content-Type': 'text/plain', 'User-Agent': 'evil', Connection: 'close' },
    });
    assert.equal(headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(headers['user-agent'], USER_AGENT);
    assert.equal(headers['X-Tenant'], 'acme');
    assert.equal(headers['Content-Type'], undefined, 'a reserved name given by the endpoint is dropped');
    assert.equal(headers['User-Agent'], undefined);
    assert.equal(headers.Connection, undefined, 'so is a hop-by-hop name');
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    for (const secret of secrets) new Webhook(secret).verify(body, headers);
  });
});

describe('the attempts budget', () => {
  const settings = harness(db, { webhooks: { maxAttempts: 3 } }).config;
  const failed = { kind: 'response', status: 500, excerpt: '', durationMs: 1 } as const;

  it('retries until webhooks.maxAttempts, then the delivery is dead with the last error', () => {
    assert.equal(decide(failed, 2, { deliveryId: 'm', endpointId: 'e', event: 'a' }, settings).result, 'retry');
    const last = decide(failed, 3, { deliveryId: 'm', endpointId: 'e', event: 'a' }, settings);
    assert.equal(last.result, 'dead');
    assert.equal(last.error, 'attempts exhausted (3 of 3); last: receiver answered 500');
  });

  it('counts a series from jobs:retry afresh, and never below one', () => {
    assert.equal(
      decide(failed, 5, { deliveryId: 'm', endpointId: 'e', event: 'a', priorAttempts: 3 }, settings).result,
      'retry',
    );
    assert.equal(
      decide(failed, 6, { deliveryId: 'm', endpointId: 'e', event: 'a', priorAttempts: 3 }, settings).result,
      'dead',
    );
    assert.equal(attemptInSeries(2, { priorAttempts: 9 }), 1);
  });
});

describe('app/webhook task', () => {
  it('drops a hand-made job without a delivery id instead of failing it (no retry loop)', async () => {
    const h = harness(db);
    await h.sql`select graphile_worker.add_job('app/webhook', '{"hello":"world"}'::json, max_attempts => 1)`;
    await runOnce(h);
    assert.equal((await jobRows(h)).length, 0);
  });

  it("logs a dropped job's field names and delivery id, never its payload's values (its body is the event's data)", async () => {
    const lines: Record<string, unknown>[] = [];
    const base = harness(db);
    const h = { ...base, log: createLogger(base.config, { name: 'test', destination: linesInto(lines) }) };
    const payload = {
      deliveryId: 'msg_dropped',
      endpointId: 'ep_1',
      event: 'a.b',
      body: { note: 'payload-marker-4c1b' },
    };
    await h.sql`select graphile_worker.add_job('app/webhook', ${JSON.stringify(payload)}::text::json, max_attempts => 1)`;
    await runOnce(h);
    const dropped = lines.find((line) => String(line.msg).startsWith('app/webhook job without'));
    assert.ok(dropped, JSON.stringify(lines));
    assert.deepEqual(
      [dropped.fields, dropped.deliveryId],
      [['deliveryId', 'endpointId', 'event', 'body'], 'msg_dropped'],
    );
    assert.doesNotMatch(JSON.stringify(lines), /payload-marker-4c1b/);
  });
});
