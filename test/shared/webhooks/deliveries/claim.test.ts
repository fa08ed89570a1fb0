/**
 * The worker's batched queries: claims and outcomes of many deliveries in one
 * statement each, and the claim's secrets equal to what shared/webhooks/endpoints/secrets.ts answers.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { secretBoxFor, signingSecrets } from '../../../../shared/webhooks/endpoints/secrets.ts';
import { createBatcher } from '../../../../worker/delivery/batch.ts';
import {
  claimDeliveries,
  claimDelivery,
  recordAttempts,
  type AttemptRecord,
  type ClaimedDelivery,
} from '../../../../shared/webhooks/deliveries/store.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { attemptRows, deliveryRow, endpoint, harness, jobRows, send, type Harness } from '../../../worker/helpers.ts';
import { rotateSecret } from '../../../../shared/webhooks/endpoints/index.ts';
import { OPERATOR } from '../../../../shared/access/actor.ts';

const db = await createTestDatabase();
// claims here are never recorded, so no endpoint cap gets in the way
const h: Harness = harness(db, { secret: 'an-application-secret', webhooks: { endpointConcurrency: 100 } });

describe('claimDeliveries', () => {
  it('reads the same signing secrets as signingSecrets(): one, two during a grace period, one once the grace ended, one after a rotation without grace', async () => {
    const ep = await endpoint(h, 'http://127.0.0.1:9/');
    const deps = { config: h.config, sql: h.sql, log: h.log };
    const box = secretBoxFor(h.config);
    const opened = async () => {
      const [id] = await send(h, ep);
      const claimed = (await claimDelivery(h.sql, h.config, id, false)) as ClaimedDelivery;
      return claimed.sealed.map((sealed) => box.open(sealed, ep.id));
    };
    assert.deepEqual(await opened(), await signingSecrets(deps, ep.id));
    assert.deepEqual(await opened(), [ep.secret]);
    const { secret: second } = await rotateSecret(deps, OPERATOR, ep.id, { grace: 60_000 });
    assert.deepEqual(await opened(), await signingSecrets(deps, ep.id));
    assert.deepEqual(await opened(), [second, ep.secret], 'newest first, both sign during the grace period');
    await h.sql`
      update app_webhooks set secrets = (
        select jsonb_agg(case when s.value ->> 'expiresAt' is null then s.value
                              else jsonb_set(s.value, '{expiresAt}', to_jsonb(to_char((now() - interval '1 second') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))) end
                         order by s.n)
          from jsonb_array_elements(secrets) with ordinality as s (value, n)),
        version = version + 1
       where id = ${ep.id}`;
    assert.deepEqual(await opened(), await signingSecrets(deps, ep.id));
    assert.deepEqual(await opened(), [second]);
    const { secret: third } = await rotateSecret(deps, OPERATOR, ep.id);
    assert.deepEqual(await opened(), [third]);
  });

  it('claims many deliveries in one statement, in the order asked, null for one that does not exist or is finished', async () => {
    const ep = await endpoint(h, 'http://127.0.0.1:9/');
    const [a] = await send(h, ep);
    const [b] = await send(h, ep);
    await h.sql`update app_webhook_deliveries set status = 'done' where id = ${b}`;
    const claimed = await claimDeliveries(h.sql, h.config, [
      { id: 'msg_missing', withBody: true },
      { id: a, withBody: true },
      { id: b, withBody: false },
    ]);
    assert.equal(claimed[0], null);
    const first = claimed[1] as ClaimedDelivery;
    assert.equal(first.id, a);
    assert.equal(first.body, (await deliveryRow(h, a))!.body, 'the body is read when asked');
    assert.equal(first.endpointId, ep.id);
    assert.equal(claimed[2], null);
    assert.equal((await deliveryRow(h, a))!.status, 'running');
  });
});

describe('recordAttempts', () => {
  it('records done, retry and dead outcomes of several deliveries in one statement, scheduling the retry under the same key', async () => {
    const ep = await endpoint(h, 'http://127.0.0.1:9/');
    const ids = [...(await send(h, ep)), ...(await send(h, ep)), ...(await send(h, ep)), ...(await send(h, ep))];
    await claimDeliveries(
      h.sql,
      h.config,
      ids.map((id) => ({ id, withBody: false })),
    );
    const base = {
      priorAttempts: 0,
      startedAt: new Date(),
      durationMs: 12,
      excerpt: 'ok\u0000',
      endpointId: ep.id,
      release: true,
    };
    const records: AttemptRecord[] = [
      { ...base, deliveryId: ids[0], httpStatus: 200, outcome: 'done', error: null },
      {
        ...base,
        deliveryId: ids[1],
        httpStatus: 503,
        outcome: 'retry',
        error: 'receiver answered 503',
        retry: { delayMs: 60_000, payload: { deliveryId: ids[1], endpointId: ep.id, event: 'order.created' } },
      },
      { ...base, deliveryId: ids[2], httpStatus: 301, outcome: 'dead', error: 'receiver answered 301' },
      { ...base, deliveryId: ids[3], priorAttempts: 5, httpStatus: 200, outcome: 'done', error: null },
    ];
    assert.deepEqual(
      await recordAttempts(h.sql, records),
      [true, true, true, false],
      'a record made against a stale attempt count is refused',
    );
    assert.deepEqual(await Promise.all(ids.map(async (id) => (await deliveryRow(h, id))!.status)), [
      'done',
      'pending',
      'dead',
      'running',
    ]);
    const [attempt] = await attemptRows(h, ids[0]);
    assert.equal(attempt.excerpt, 'ok\uFFFD', 'U+0000, which PostgreSQL text cannot hold, is replaced');
    const retry = (await jobRows(h, ids[1]))[0];
    assert.deepEqual(retry.payload, { deliveryId: ids[1], endpointId: ep.id, event: 'order.created' });
    const delay = new Date(retry.run_at).getTime() - Date.now();
    assert.ok(delay > 55_000 && delay <= 60_000, String(delay));
    assert.equal(
      new Date((await deliveryRow(h, ids[1]))!.next_attempt_at!).getTime(),
      new Date(retry.run_at).getTime(),
    );
  });
});

describe('createBatcher', () => {
  it('sends the items of one turn together, the items that arrive during a flush in the next batch, and falls back to one by one when a batch fails', async () => {
    const batches: number[][] = [];
    let release: () => void = () => {};
    let gate: Promise<void> | undefined;
    const batcher = createBatcher(
      async (items: number[]) => {
        batches.push(items);
        if (gate) await gate;
        if (items.length > 1 && items.includes(13)) throw new Error('one bad item');
        if (items.length === 1 && items[0] === 13) throw new Error('thirteen');
        return items.map((item) => item * 2);
      },
      { maxSize: 10 },
    );
    assert.deepEqual(await Promise.all([1, 2, 3].map((item) => batcher.add(item))), [2, 4, 6]);
    assert.deepEqual(batches, [[1, 2, 3]]);

    gate = new Promise((resolve) => (release = resolve));
    const first = batcher.add(4);
    await new Promise((resolve) => setImmediate(resolve));
    const later = [5, 6].map((item) => batcher.add(item));
    gate = undefined;
    release();
    assert.deepEqual(await Promise.all([first, ...later]), [8, 10, 12]);
    assert.deepEqual(batches.slice(1), [[4], [5, 6]]);

    const results = await Promise.allSettled([12, 13, 14].map((item) => batcher.add(item)));
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
  });
});
