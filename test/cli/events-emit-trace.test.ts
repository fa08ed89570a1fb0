/**
 * An emit from the command line starts a trace of its own: `app events:emit` with
 * `OTEL_EXPORTER_OTLP_ENDPOINT` exports a root `emit` span, flushed before the command ends, and
 * every delivery keeps that span's context, in its row and in its job, so that the attempts are
 * in its trace: a plain endpoint's job written at the emit, a FIFO endpoint's job written when
 * its line admits it (built from the row), and the job of `jobs:retry` (also built from the row).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { runAppInProcess } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.ts';

let db: TestDatabase;
let otlp: OtlpReceiver;
let deliveries: { externalId: string }[];
const env = () => ({
  PATH: process.env.PATH ?? '',
  NODE_ENV: 'test',
  DATABASE_URL: db.url,
  APP_WEBHOOKS__ALLOW_HTTP: 'true',
  APP_WEBHOOKS__ALLOW_PRIVATE: 'true',
});

async function app(args: string[], extra: Record<string, string> = {}) {
  const run = await runAppInProcess(args, { ...env(), ...extra });
  assert.equal(run.code, 0, run.stderr);
  return run;
}

/** The delivery's `traceparent` column and the `traceparent` of its live job's payload. */
async function keptContext(deliveryId: string) {
  const [row] = await db.sql<{ kept: string | null; job: string | null }[]>`
    select d.traceparent as kept,
           (select j.payload->>'traceparent' from graphile_worker._private_jobs j where j.key = d.id) as job
      from app_webhook_deliveries d where d.id = ${deliveryId}`;
  return row;
}

describe('an emit from the command line', () => {
  before(async () => {
    db = await createTestDatabase();
    otlp = await startOtlpReceiver();
    // registered without tracing: the one traced command of this process is the emit
    await app(['webhooks:add', 'http://127.0.0.1:9/plain', '--events', 'order.*']);
    await app(['webhooks:add', 'http://127.0.0.1:9/fifo', '--events', 'order.*', '--fifo']);
    const run = await app(['events:emit', 'order.created', '--data', '{"id": 42}', '--json'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    deliveries = (JSON.parse(run.stdout) as { deliveryIds: string[] }).deliveryIds.map((id) => ({ externalId: id }));
  });

  it('starts its own trace, flushed before the command ends, and each delivery keeps its context', async () => {
    const emits = otlp.spans.filter((span) => span.name === 'emit');
    assert.equal(emits.length, 1, 'the span was exported before the command returned');
    const [emit] = emits;
    assert.equal(emit.parentSpanId, '', 'a root: the command line has no caller to continue');
    assert.equal(emit.attributes['app.event.type'], 'order.created');
    assert.equal(emit.attributes['app.event.fanout'], 2);

    const traceparent = `00-${emit.traceId}-${emit.spanId}-01`;
    for (const { externalId: id } of deliveries) {
      assert.deepEqual(await keptContext(id), { kept: traceparent, job: traceparent }, id);
    }
  });

  it('jobs:retry queues a job that carries the context kept on the row', async () => {
    const [delivery] = await db.sql<{ id: string; traceparent: string }[]>`
      select id, traceparent from app_webhook_deliveries where id = ${deliveries[0].externalId}`;
    assert.match(delivery.traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    await db.sql`delete from graphile_worker._private_jobs where key = ${delivery.id}`;
    await db.sql`update app_webhook_deliveries set status = 'dead', slot = false, completed_at = now() where id = ${delivery.id}`;
    await app(['jobs:retry', delivery.id]);
    assert.equal((await keptContext(delivery.id)).job, delivery.traceparent);
  });
});
