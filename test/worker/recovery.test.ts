/**
 * Crash recovery without killing processes: the job states a crash can
 * leave behind are made by hand, then one recovery sweep runs, then a worker. The kill -9 test
 * (crash.test.ts) does it for real.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  claimDelivery,
  paceDelivery,
  recordAttempt,
  type ClaimedDelivery,
} from '../../shared/webhooks/deliveries/store.ts';
import { wakeEndpoints } from '../../shared/webhooks/deliveries/flow.ts';
import { beat, LIVENESS_LOCK, openLiveness, sweep } from '../../worker/heartbeat.ts';
import { eventually } from '../helpers/poll.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from './delivery/receiver.ts';
import { attemptRows, deliveryRow, endpoint, harness, jobRows, runOnce, send, type Harness } from './helpers.ts';

const db = await createTestDatabase();
const h: Harness = harness(db, { worker: { staleAfter: '1s' }, webhooks: { backoff: { base: '10s' } } });

/** As a worker pool `pool` would leave it: job of delivery `id` locked (attempt counted) `ageMs` ago. */
async function lockAs(id: string, pool: string, ageMs: number): Promise<void> {
  await h.sql`
    update graphile_worker._private_jobs
       set locked_by = ${pool}, locked_at = now() - ${ageMs}::int * interval '1 millisecond', attempts = attempts + 1
     where key = ${id}`;
}

/** A run's record of a failed attempt of delivery `id`, its retry due at once. */
function recordRetry(id: string, endpointId: string, claimed: ClaimedDelivery): Promise<boolean> {
  return recordAttempt(h.sql, {
    deliveryId: id,
    endpointId,
    release: claimed.slot,
    priorAttempts: claimed.attempts,
    startedAt: new Date(),
    durationMs: 5,
    httpStatus: 503,
    outcome: 'retry',
    error: 'receiver answered 503',
    excerpt: '',
    retry: { delayMs: 0, payload: { deliveryId: id, endpointId, event: 'order.created' } },
  });
}

describe('recovery sweep', () => {
  const receivers: Receiver[] = [];
  let receiver: Receiver;
  after(async () => {
    for (const r of receivers) await r.close();
  });
  const ok = async () => {
    receiver = await startReceiver((_req, res) => res.end('ok'));
    receivers.push(receiver);
    return endpoint(h, `${receiver.origin}/`);
  };

  it('a crash after the retry was scheduled but before the job completed leaves exactly one live job, and the delivery is made once', async () => {
    const ep = await ok();
    const [id] = await send(h, ep);
    await lockAs(id, 'pool-crashed-after-scheduling', 60_000);
    // What the task did before the crash: took the delivery up, failed, recorded the attempt
    // and scheduled the retry (due at once).
    const claimed = (await claimDelivery(h.sql, h.config, id, false)) as ClaimedDelivery;
    const recorded = await recordRetry(id, ep.id, claimed);
    assert.equal(recorded, true);
    const jobs = await jobRows(h);
    const mine = jobs.filter((job) => job.key === id || job.locked_by === 'pool-crashed-after-scheduling');
    assert.equal(mine.length, 2, 'the crashed job and the scheduled retry');
    const crashed = mine.find((job) => job.locked_by !== null)!;
    assert.equal(crashed.key, null, 'the crashed job gave its key to the retry');
    assert.equal(crashed.attempts, crashed.max_attempts, 'and can never run again');

    const result = await sweep(h);
    assert.ok(result.stalePools.includes('pool-crashed-after-scheduling'));
    const left = (await jobRows(h)).filter((job) => job.key === id || job.id === crashed.id);
    assert.equal(left.length, 1, 'one live job for the delivery');
    assert.equal(left[0].key, id);

    await runOnce(h);
    assert.equal(receiver.requests.length, 1, 'delivered once');
    const delivery = (await deliveryRow(h, id))!;
    assert.equal(delivery.status, 'done');
    assert.deepEqual(
      (await attemptRows(h, id)).map((a) => a.outcome),
      ['retry', 'done'],
    );
  });

  it('a crash in the middle of an attempt: the job of a pool whose heartbeat stopped is unlocked and armed again, and the delivery is made', async () => {
    const ep = await ok();
    const [id] = await send(h, ep);
    await lockAs(id, 'pool-crashed-mid-attempt', 60_000);
    await claimDelivery(h.sql, h.config, id, false);
    await h.sql`insert into app_worker_heartbeats (pool_id, host, pid, seen_at) values ('pool-crashed-mid-attempt', 'gone', 1, now() - interval '1 minute')`;
    const result = await sweep(h);
    assert.ok(result.stalePools.includes('pool-crashed-mid-attempt'));
    assert.ok(result.rearmed >= 1);
    const [job] = await jobRows(h, id);
    assert.equal(job.locked_by, null);
    assert.equal(job.attempts, 0);
    assert.ok(new Date(job.run_at).getTime() <= Date.now() + 1000, 'due at once');
    const beats = await h.sql`select 1 from app_worker_heartbeats where pool_id = 'pool-crashed-mid-attempt'`;
    assert.equal(beats.length, 0, "the dead pool's heartbeat row is gone");
    await runOnce(h);
    assert.equal(receiver.requests.length, 1);
    assert.equal((await deliveryRow(h, id))!.status, 'done');
  });

  it('the jobs of a pool with a fresh heartbeat are left locked, however long they have been', async () => {
    const ep = await ok();
    const [id] = await send(h, ep);
    await lockAs(id, 'pool-alive', 3_600_000);
    await beat(h.sql, ['pool-alive']);
    const result = await sweep(h);
    assert.ok(!result.stalePools.includes('pool-alive'));
    const [job] = await jobRows(h, id);
    assert.equal(job.locked_by, 'pool-alive');
    await h.sql`delete from app_worker_heartbeats where pool_id = 'pool-alive'`;
  });

  /**
   * A run presumed dead while alive (silent past staleAfter: a starved or paused process) goes on
   * after the sweep re-armed its delivery: it queues the delivery's next job under the delivery's
   * key, then graphile-worker completes the run by deleting the run's own job by its id. The
   * re-armed job must not be the row that next job is written into.
   */
  async function outlivedRun(id: string, pool: string): Promise<{ jobId: string; claimed: ClaimedDelivery }> {
    await lockAs(id, pool, 60_000);
    const [job] = await jobRows(h, id);
    const claimed = (await claimDelivery(h.sql, h.config, id, false)) as ClaimedDelivery;
    const result = await sweep(h);
    assert.ok(result.stalePools.includes(pool), 'the silent pool was presumed dead');
    assert.ok(result.rearmed >= 1, 'and its delivery armed again');
    return { jobId: job.id, claimed };
  }
  /** What graphile-worker does when a run returns: deletes the run's job by id, whoever holds it. */
  const completeRun = (jobId: string) => h.sql`delete from graphile_worker._private_jobs where id = ${jobId}`;

  it('a run presumed dead that lives on and schedules its retry: its completion leaves the retry, and the delivery is made', async () => {
    const ep = await ok();
    const [id] = await send(h, ep);
    const { jobId, claimed } = await outlivedRun(id, 'pool-silent-then-retry');
    const recorded = await recordRetry(id, ep.id, claimed);
    assert.equal(recorded, true);
    await completeRun(jobId);
    const left = await jobRows(h, id);
    assert.equal(left.length, 1, 'the delivery still has its job');
    assert.equal(left[0].locked_by, null);
    await runOnce(h);
    assert.equal(receiver.requests.length, 1, 'delivered');
    assert.equal((await deliveryRow(h, id))!.status, 'done');
  });

  it('a run presumed dead that lives on and sends its delivery back to wait for its rateLimit start: its completion leaves that job', async () => {
    const ep = await ok();
    const [id] = await send(h, ep);
    const { jobId, claimed } = await outlivedRun(id, 'pool-silent-then-paced');
    // a start reserved a second ahead, further than the lead: the delivery is sent back to wait for it
    await h.sql`insert into app_endpoint_pace (endpoint_id, next_at) values (${ep.id}, clock_timestamp() + interval '1 second')`;
    const pace = await paceDelivery(h.sql, { deliveryId: id, endpointId: ep.id, event: 'order.created' }, 5, {
      leadMs: 50,
      release: claimed.slot,
    });
    assert.equal(pace.deferred, true);
    await completeRun(jobId);
    const left = await jobRows(h, id);
    assert.equal(left.length, 1, 'the delivery still has its job');
    assert.equal(typeof left[0].payload.paced, 'number', 'the job that waits for its start');
  });

  it('a run presumed dead that lives on and parks its delivery: the wake that follows queues a job its completion leaves', async () => {
    const ep = await ok();
    const [id] = await send(h, ep);
    await lockAs(id, 'pool-silent-then-parked', 60_000);
    const [job] = await jobRows(h, id);
    // what the run's claim did at its endpoint's cap: the delivery parked for a slot
    await h.sql`update app_webhook_deliveries set parked_at = now(), slot = false where id = ${id}`;
    const result = await sweep(h);
    assert.ok(result.stalePools.includes('pool-silent-then-parked'));
    // woken into its endpoint's free slot: by the sweep's own look for stranded deliveries, or
    // else by a slot given back
    assert.equal(result.woken + (await wakeEndpoints(h.sql, h.config, [ep.id])), 1);
    await completeRun(job.id);
    const left = await jobRows(h, id);
    assert.equal(left.length, 1, 'the woken delivery still has its job');
    await runOnce(h);
    assert.equal(receiver.requests.length, 1, 'delivered');
    assert.equal((await deliveryRow(h, id))!.status, 'done');
  });

  it('a pool without any heartbeat row (killed before its first beat) loses its jobs only once they are locked longer than staleAfter', async () => {
    const ep = await ok();
    const [id] = await send(h, ep);
    await lockAs(id, 'pool-never-beat', 100);
    assert.ok(!(await sweep(h)).stalePools.includes('pool-never-beat'), 'locked 100 ms ago: not yet');
    await h.sql`update graphile_worker._private_jobs set locked_at = now() - interval '2 seconds' where key = ${id}`;
    assert.ok((await sweep(h)).stalePools.includes('pool-never-beat'), 'locked longer than staleAfter (1 s)');
    const [job] = await jobRows(h, id);
    assert.equal(job.locked_by, null);
    assert.equal(job.attempts, 0);
  });

  it('a pool whose row names a liveness key some connection holds is alive; once the key is free it is dead at once, however fresh its row', async () => {
    const ep = await ok();
    const [id] = await send(h, ep);
    await lockAs(id, 'pool-keyed', 100);
    const key = 0x1234567;
    const holder = await h.sql.reserve();
    try {
      await holder`select pg_advisory_lock(${LIVENESS_LOCK}::int, ${key}::int)`;
      await beat(h.sql, ['pool-keyed'], key);
      assert.ok(!(await sweep(h)).stalePools.includes('pool-keyed'), 'key held: alive');
      assert.equal((await jobRows(h, id))[0].locked_by, 'pool-keyed');
      await holder`select pg_advisory_unlock(${LIVENESS_LOCK}::int, ${key}::int)`;
    } finally {
      holder.release();
    }
    // the row written a moment ago, while the key was held: only the key tells
    const result = await sweep(h);
    assert.ok(result.stalePools.includes('pool-keyed'), 'key free: dead although beating 0 s and locked 0.1 s ago');
    const [job] = await jobRows(h, id);
    assert.equal(job.locked_by, null);
    assert.equal(job.attempts, 0, 'armed again');
    const rows = await h.sql`select 1 from app_worker_heartbeats where pool_id = 'pool-keyed'`;
    assert.equal(rows.length, 0, "the dead pool's row is gone");
  });

  it('a row without a liveness key follows the staleAfter rule alone', async () => {
    const ep = await ok();
    const [id] = await send(h, ep);
    await lockAs(id, 'pool-keyless', 100);
    await beat(h.sql, ['pool-keyless']);
    assert.ok(!(await sweep(h)).stalePools.includes('pool-keyless'), 'fresh row, no key: alive');
    await h.sql`update graphile_worker._private_jobs set locked_at = now() - interval '2 seconds' where key = ${id}`;
    await h.sql`update app_worker_heartbeats set seen_at = now() - interval '2 seconds' where pool_id = 'pool-keyless'`;
    assert.ok((await sweep(h)).stalePools.includes('pool-keyless'), 'silent longer than staleAfter (1 s): dead');
  });

  it("a worker process's liveness lock is held on a connection of its own until closed, and the key it records is that lock's", async () => {
    const liveness = openLiveness(h.config, h.log);
    const held = async (key: number) =>
      (
        await h.sql`
          select 1 from pg_locks
           where locktype = 'advisory' and granted and classid = ${LIVENESS_LOCK}::int::oid
             and objid = ${key}::int::oid and objsubid = 2 and pid <> pg_backend_pid()`
      ).length === 1;
    let key: number | null = null;
    try {
      key = await liveness.hold();
      assert.ok(key !== null);
      assert.equal(await held(key), true);
      assert.equal(await liveness.hold(), key, 'the same key, still held');
      assert.equal(await held(key), true);
    } finally {
      await liveness.close();
    }
    const gone = key as number;
    await eventually(async () => !(await held(gone)) || undefined, 5_000, 'the lock released with its connection');
  });

  it('a job graphile-worker failed (the task threw, e.g. the database went away) is armed again after backoff.base, not in a loop', async () => {
    const ep = await ok();
    const [id] = await send(h, ep);
    await h.sql`update graphile_worker._private_jobs set attempts = max_attempts, last_error = 'connection terminated' where key = ${id}`;
    const before = Date.now();
    await sweep(h);
    const [job] = await jobRows(h, id);
    assert.equal(job.attempts, 0);
    const delay = new Date(job.run_at).getTime() - before;
    assert.ok(
      delay > 8_000 && delay < 12_000,
      `armed again in ${delay} ms, expected about webhooks.backoff.base (10 s)`,
    );
  });

  it('leftover jobs of finished or removed deliveries are deleted, not run', async () => {
    const ep = await ok();
    const [done] = await send(h, ep);
    await h.sql`update app_webhook_deliveries set status = 'done' where id = ${done}`;
    await lockAs(done, 'pool-crashed-before-completion', 60_000);
    const result = await sweep(h);
    assert.ok(result.removed >= 1);
    assert.equal((await jobRows(h, done)).length, 0);
    await runOnce(h);
    assert.equal(receiver.requests.length, 0);
  });

  it('one sweep at a time: a sweep that finds another in progress does nothing', async () => {
    const holder = await h.sql.reserve();
    try {
      await holder`begin`;
      await holder`select pg_advisory_xact_lock(${0x61707001})`;
      const result = await sweep(h);
      assert.equal(result.swept, false);
      await holder`rollback`;
    } finally {
      holder.release();
    }
    assert.equal((await sweep(h)).swept, true);
  });
});
