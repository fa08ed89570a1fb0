/**
 * The worker runs every `app/webhook` job payload a release of the service has ever written.
 *
 * During a deploy the job queue holds jobs written by the release before: by its web processes
 * (emits), its workers (retries, paced starts, FIFO admissions) and its CLI (`jobs:retry`,
 * `webhooks:recover`). The new worker runs them. A payload it refused would be dropped (the task
 * logs it and ends) and its delivery left pending with no job: an event lost. So each shape below
 * is put in the queue as a real job, in place of the one the emit wrote, and the worker must
 * deliver it: the receiver gets the delivery's own body once, signed with its id.
 *
 * The fixtures are reconstructed from the history of the payload's writers
 * (shared/webhooks/deliveries/job.ts and, before it, worker/delivery/store.ts and the emit): a
 * shape stays here as long as a release that writes it may be deployed from. (A FIFO admission or
 * the wake of a parked delivery queues one of these again, less `paced`.) A new field in the
 * payload is a new fixture; a field the worker stops reading is still sent by the fixtures that
 * have it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from './delivery/receiver.ts';
import { deliveryRow, endpoint, harness, jobRows, runOnce, send, type Harness } from './helpers.ts';

const db = await createTestDatabase();
const h: Harness = harness(db);

/** The delivery a fixture's job is for: its row as the emit wrote it. */
interface Delivery {
  id: string;
  endpointId: string;
  event: string;
  body: string;
}

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/** Each payload shape the releases wrote, with what wrote it; `rateLimited`: written only for an endpoint with a `rateLimit`. */
const SHAPES: { name: string; rateLimited?: boolean; payload: (d: Delivery) => Record<string, unknown> }[] = [
  {
    name: 'the emit (every release)',
    payload: (d) => ({ deliveryId: d.id, endpointId: d.endpointId, event: d.event, body: d.body }),
  },
  {
    name: 'the emit of a process that traces (since trace contexts were kept)',
    payload: (d) => ({
      deliveryId: d.id,
      endpointId: d.endpointId,
      event: d.event,
      body: d.body,
      traceparent: TRACEPARENT,
    }),
  },
  {
    name: "the worker's first retry, no body and no priorAttempts (the first releases left a zero out)",
    payload: (d) => ({ deliveryId: d.id, endpointId: d.endpointId, event: d.event }),
  },
  {
    name: 'a retry within a series, and jobs:retry or webhooks:recover before trace contexts (priorAttempts always written)',
    payload: (d) => ({ deliveryId: d.id, endpointId: d.endpointId, event: d.event, priorAttempts: 2 }),
  },
  {
    name: 'jobs:retry or webhooks:recover since trace contexts (nulls stripped)',
    payload: (d) => ({
      deliveryId: d.id,
      endpointId: d.endpointId,
      event: d.event,
      priorAttempts: 0,
      traceparent: TRACEPARENT,
    }),
  },
  {
    name: 'a start paced under a rateLimit before the reserved time was kept (paced: true)',
    rateLimited: true,
    payload: (d) => ({ deliveryId: d.id, endpointId: d.endpointId, event: d.event, body: d.body, paced: true }),
  },
  {
    name: 'a paced start reserved before the deploy and missed meanwhile (paced: ms since the epoch, fractional)',
    rateLimited: true,
    payload: (d) => ({ deliveryId: d.id, endpointId: d.endpointId, event: d.event, paced: Date.now() - 60_000 + 0.25 }),
  },
];

describe('job payloads of earlier releases', () => {
  let receiver: Receiver;
  const deliveries = new Map<string, Delivery>();

  before(async () => {
    receiver = await startReceiver((_req, res) => res.end('ok'));
    // every job is written before the worker starts, as a deploy finds them in the queue
    for (const shape of SHAPES) {
      const ep = await endpoint(h, `${receiver.origin}/`, shape.rateLimited ? { rateLimit: 50 } : {});
      const [id] = await send(h, ep);
      const [row] = await h.sql<{ body: string; event_type: string }[]>`
        select body, event_type from app_webhook_deliveries where id = ${id}`;
      const delivery = { id, endpointId: ep.id, event: row.event_type, body: row.body };
      deliveries.set(shape.name, delivery);
      // graphile-worker's add_job with the delivery's key replaces the job the emit wrote
      await h.sql`
        select graphile_worker.add_job('app/webhook', ${JSON.stringify(shape.payload(delivery))}::text::json,
          job_key => ${id}, max_attempts => 1)`;
    }
    const [{ jobs }] = await h.sql<{ jobs: number }[]>`
      select count(*)::int as jobs from graphile_worker.jobs where task_identifier = 'app/webhook'`;
    assert.equal(jobs, SHAPES.length, 'one job per delivery, each carrying its fixture payload');
    // every job due now, run to its end (a paced one reserves its start anew: the endpoint is idle, so at once)
    await runOnce(h);
  });
  after(() => receiver.close());

  for (const shape of SHAPES) {
    it(`delivers the payload of ${shape.name}`, async () => {
      const delivery = deliveries.get(shape.name) as Delivery;
      const row = await deliveryRow(h, delivery.id);
      const left = await jobRows(h, delivery.id);
      // a refused payload's job ends without an attempt: the delivery stays pending with no job
      assert.equal(row?.status, 'done', `run, not dropped (${left.length} job left, last error: ${row?.last_error})`);
      const received = receiver.requests.filter((request) => request.headers['webhook-id'] === delivery.id);
      assert.equal(received.length, 1, 'sent once');
      assert.equal(
        received[0].body.toString(),
        delivery.body,
        "the delivery's own body, whether or not the job carried it",
      );
    });
  }
});
