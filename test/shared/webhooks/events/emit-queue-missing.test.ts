import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from '../../../helpers/database.ts';
import { emit } from '../../../../shared/webhooks/events/emit.ts';
import { ensureWebhookTables } from '../../../../shared/webhooks/install.ts';
import { appError, depsOf } from '../fixtures.ts';
import { registerEndpoint } from '../../../../shared/webhooks/endpoints/index.ts';
import { sendToEndpoint } from '../../../../shared/webhooks/events/index.ts';
import { OPERATOR } from '../../../../shared/access/actor.ts';

// This file's database loses graphile-worker's schema, so it has a file of its own.
const db = await createTestDatabase();

describe('emit without the queue schema', () => {
  it('refuses with 503 APP_WEBHOOK_QUEUE_MISSING naming what is missing and `app migrate`, and writes nothing', async () => {
    const deps = depsOf(db);
    const endpoint = await registerEndpoint(deps, OPERATOR, { url: 'https://127.0.0.1/q', events: ['*'] });
    await db.sql`drop schema graphile_worker cascade`;
    for (const attempt of [
      () => emit(deps, 'a.b', { a: 1 }),
      () => sendToEndpoint(deps, OPERATOR, endpoint.id, 'a.b', {}),
    ]) {
      await assert.rejects(
        attempt(),
        appError('APP_WEBHOOK_QUEUE_MISSING', 503, (e) => {
          assert.match(e.message, /schema graphile_worker/);
          assert.match(e.message, /function graphile_worker\.add_jobs/);
          assert.match(e.message, /app migrate/);
          assert.deepEqual(e.data?.missing, [
            'schema graphile_worker',
            'type graphile_worker.job_spec',
            'function graphile_worker.add_jobs',
          ]);
        }),
      );
    }
    const [{ events, deliveries }] = await db.sql<{ events: number; deliveries: number }[]>`
      select (select count(*) from app_events)::int as events, (select count(*) from app_webhook_deliveries)::int as deliveries`;
    assert.deepEqual({ events, deliveries }, { events: 0, deliveries: 0 });
  });

  it('works again once the queue schema is installed (webhooks:install)', async () => {
    const deps = depsOf(db);
    await ensureWebhookTables(deps);
    assert.equal((await emit(deps, 'a.b', {})).length, 1);
  });
});
