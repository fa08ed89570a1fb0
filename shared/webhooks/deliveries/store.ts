/**
 * The write side of deliveries, which the delivery worker runs: claiming, recording attempts,
 * marking dead. Its queries on `app_webhook_deliveries`, `app_webhook_attempts` and the
 * job queue (schema: migrations/001_webhooks.sql). Each state change of a delivery is ONE
 * statement (data-modifying CTEs), so it is atomic without a BEGIN/COMMIT round trip, and a
 * retry is scheduled in the same statement that records the failed attempt (so a crash between
 * the two cannot lose the retry).
 *
 * Why a retry cannot leave two live jobs for one delivery: every job of a delivery has
 * `job_key` = the delivery id. The running job is locked, so `graphile_worker.add_job` with the
 * same key clears the running job's key and sets its attempts to its max (it can never run
 * again) and inserts the next job, all inside the statement that records the attempt. A crash
 * before that statement commits leaves the running job (recovered, it performs the attempt
 * again); a crash after it leaves the new job plus a dead, keyless remnant that the recovery
 * sweep deletes (worker/heartbeat.ts).
 */
import type { Config } from '../../config/index.ts';
import type { Sql } from '../../db/connect.ts';
import { endpointStoreOf, type Queryable } from '../endpoints/store.ts';
import { endpointRecords, type EndpointRecords } from '../endpoints/records.ts';
import { activeSecrets } from '../endpoints/secrets.ts';

import { deliveryJobSpec, type DeliveryJobPayload } from './job.ts';
import type { DeliveryStatus } from '../events/enqueue.ts';
import { transaction } from '../../db/transaction.ts';
import { recordedText } from './recorded-text.ts';

export type { DeliveryJobPayload, DeliveryStatus };

/** A delivery taken up for an attempt, with what the attempt needs of its endpoint. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  /** The tenant of the delivery (its event's owner). */
  owner: string | null;
  /**
   * The endpoint's owner as its record says now: another than `owner` when the endpoint moved to
   * another tenant after the emit, and then the delivery is not sent (a tenant's events never
   * reach another tenant's receiver).
   */
  endpointOwner: string | null;
  /** The endpoint's `rateLimit` (deliveries per second), or null for none. */
  rateLimit: number | null;
  /** With a `rateLimit`: the database's clock at the claim (ms since the epoch), what a paced start is checked against. */
  clockMs: number | null;
  /** Attempts recorded before this one. */
  attempts: number;
  body: string;
  url: string;
  headers: Record<string, string>;
  disabledAt: Date | null;
  disabledReason: string | null;
  /** The endpoint's signing secrets as stored (sealed), newest first; open them with the secret box. */
  sealed: string[];

  /** It holds one of its endpoint's slots (give it back when recording: `AttemptRecord.release`). */
  slot: boolean;
  /** Its endpoint delivers in emit order, one at a time (`ordering: "fifo"`). */
  fifo: boolean;
}

/** What `claimDeliveries` is asked: a delivery id, whether its body must be read, and its job's payload (kept if it is parked). */
export interface ClaimRequest {
  id: string;
  withBody: boolean;
  /** The job's payload; absent: a parked delivery is queued again with its id, endpoint, event and no prior attempts. */
  job?: DeliveryJobPayload;
  /** Park the delivery when its endpoint has no slot free (default); false: answer `full` and change nothing. */
  park?: boolean;
}

/** A delivery that found its endpoint at its cap: parked until a slot frees (no attempt, no job). */
export interface ParkedDelivery {
  parked: true;
  id: string;
  endpointId: string;
  /** The endpoint's `rateLimit`, or null for none. */
  rateLimit: number | null;
  /** Its endpoint delivers in emit order (`ordering: "fifo"`). */
  fifo: boolean;
}

/** A delivery asked without `park` whose endpoint had no slot free: nothing was changed. */
export interface FullEndpoint {
  full: true;
  id: string;
  endpointId: string;
}

/** What a claim answers for one delivery (null: nothing to do). */
export type Claim = ClaimedDelivery | ParkedDelivery | FullEndpoint | null;

interface ClaimRow {
  id: string;
  endpoint_id: string;
  state: 'claimed' | 'parked' | 'full';
  slot: boolean;
  fifo: boolean;
  owner: string | null;
  rate_limit: number | null;
  clock_ms: number | null;
  attempts: number;
  body: string | null;
  disabled_at: Date | null;
  version: number;
}

/**
 * Takes up deliveries in one statement and answers each (in the order asked): claimed (marked
 * running, with its endpoint and secrets), parked, full, or null when there is nothing to do: the
 * delivery is done or dead already (a duplicate job after a crash), it is parked already (its
 * job ran again after a crash: the wake will queue it), or it no longer exists (its endpoint was
 * removed). The body is read only for requests `withBody` (jobs whose payload lacks it).
 *
 * Fairness (migrations/029 `app_claim_deliveries_whole`, after 014, shared/webhooks/deliveries/flow.ts): a
 * delivery that holds no slot of its enabled endpoint takes one if the endpoint has fewer than its
 * cap held (those that would park first, then the oldest); the others are parked, or answered
 * `full` when asked without `park`. The slots are counted under the endpoints' gate locks, so
 * every worker agrees.
 */
export async function claimDeliveries(
  sql: Queryable,
  config: Pick<Config, 'webhooks'>,
  requests: readonly ClaimRequest[],
  details: EndpointRecords = endpointRecords(endpointStoreOf({ config, sql: sql as Sql })),
): Promise<Claim[]> {
  const ids = requests.map((request) => request.id);
  const withBody = requests.filter((request) => request.withBody).map((request) => request.id);
  const jobs = requests.map((request) => {
    if (request.job === undefined) return null;
    const { body: _body, paced: _paced, ...job } = request.job;
    return JSON.stringify(job);
  });
  const parks = requests.map((request) => String(request.park !== false));
  // The commit does not wait for the WAL flush (synchronous_commit off for this statement
  // alone): losing a `running` mark to a server crash leaves the delivery pending, which the
  // worker treats the same (and the job's completion, committed durably later, flushes it).
  const rows = await sql<ClaimRow[]>`
    with async as (select set_config('synchronous_commit', 'off', true) as off)
    select c.id, c.endpoint_id, c.state, c.slot, c.fifo, c.owner, c.attempts, c.body, c.disabled_at, c.rate_limit, c.version,
           case when c.state = 'claimed' and c.rate_limit is not null then (extract(epoch from clock_timestamp()) * 1000)::float8 end as clock_ms
      from app_claim_deliveries_whole(${ids}::text[], ${jobs}::text[], ${parks}::text[]::boolean[], ${config.webhooks.endpointConcurrency}::int, ${withBody}::text[]) c
     where (select off from async) = 'off'`;
  const claimed = rows.filter((row) => row.state === 'claimed');
  const records =
    claimed.length === 0
      ? new Map()
      : await details.load(claimed.map((row) => ({ id: row.endpoint_id, version: row.version })));
  const now = new Date();
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id): Claim => {
    const row = byId.get(id);
    if (row === undefined) return null;
    if (row.state === 'full') return { full: true, id, endpointId: row.endpoint_id };
    if (row.state === 'parked')
      return { parked: true, id, endpointId: row.endpoint_id, rateLimit: row.rate_limit ?? null, fifo: row.fifo };
    const endpoint = records.get(row.endpoint_id);
    return {
      id,
      endpointId: row.endpoint_id,
      owner: row.owner,
      endpointOwner: endpoint === undefined ? row.owner : endpoint.owner,
      rateLimit: row.rate_limit ?? null,
      clockMs: row.clock_ms ?? null,
      attempts: row.attempts,
      body: row.body ?? '',
      url: endpoint?.url ?? '',
      headers: endpoint?.headers ?? {},
      // an endpoint whose record is gone is being removed: nothing is sent to it
      disabledAt: endpoint === undefined ? (row.disabled_at ?? now) : row.disabled_at,
      disabledReason: endpoint === undefined ? 'the endpoint was removed' : endpoint.disabledReason,
      sealed: endpoint === undefined ? [] : activeSecrets(endpoint, now).map((secret) => secret.sealed),
      slot: row.slot,
      fifo: row.fifo,
    };
  });
}

/** `claimDeliveries` for one delivery. */
export async function claimDelivery(
  sql: Queryable,
  config: Pick<Config, 'webhooks'>,
  id: string,
  withBody: boolean,
  details?: EndpointRecords,
): Promise<Claim> {
  return (await claimDeliveries(sql, config, [{ id, withBody }], details))[0];
}

/** The status of delivery `id`, or null when it does not exist (for the log of a skipped job). */
export async function deliveryStatus(sql: Queryable, id: string): Promise<DeliveryStatus | null> {
  const rows = await sql<{ status: DeliveryStatus }[]>`select status from app_webhook_deliveries where id = ${id}`;
  return rows.length === 0 ? null : rows[0].status;
}

/** One attempt and what it decided, as `recordAttempt` writes it. */
export interface AttemptRecord {
  deliveryId: string;
  /** `ClaimedDelivery.attempts`: the record applies only if nobody recorded an attempt since. */
  priorAttempts: number;
  startedAt: Date;
  durationMs: number;
  /**
   * The part of `durationMs` the receiver took: without the worker's own delays meanwhile
   * (worker/delivery/lateness.ts). Judges the endpoint slow or quick; `durationMs` when absent.
   */
  receiverMs?: number;
  /** The receiver's status, when it answered. */
  httpStatus: number | null;
  outcome: 'done' | 'retry' | 'dead';
  error: string | null;
  excerpt: string | null;
  /** With outcome `retry`: the delay and the payload of the next job. */
  retry?: { delayMs: number; payload: DeliveryJobPayload };
  /** The delivery's endpoint. */
  endpointId: string;
  /** Give the delivery's slot back (it held one, and is finished, or waits for a retry of a non-FIFO endpoint). */
  release: boolean;
}

/**
 * Of `endpointIds`, those with deliveries parked for a slot: what a run asks once the release of
 * its slot committed (a new statement sees what committed before it). A claim parks under the
 * gate lock after counting the slots held, then looks again once its park committed
 * (`withSlotFree`): of the two that look after their own write, one sees the other's, so no
 * parked delivery is left behind a free slot.
 */
export async function withParked(sql: Queryable, endpointIds: readonly string[]): Promise<Set<string>> {
  if (endpointIds.length === 0) return new Set();
  const rows = await sql<{ endpoint_id: string }[]>`
    select e as endpoint_id from app_endpoints_with_parked(${[...new Set(endpointIds)]}::text[]) as e`;
  return new Set(rows.map((row) => row.endpoint_id));
}

/**
 * Of `endpointIds`, those with a slot free now (their cap, one for a FIFO endpoint, more than the
 * slots held): what a claim that parked asks once its park committed.
 */
export async function withSlotFree(
  sql: Queryable,
  config: Pick<Config, 'webhooks'>,
  endpointIds: readonly string[],
): Promise<Set<string>> {
  if (endpointIds.length === 0) return new Set();
  const rows = await sql<{ id: string }[]>`
    select g.endpoint_id as id from app_endpoint_gate g
     where g.endpoint_id = any(${[...new Set(endpointIds)]}::text[])
       and app_endpoint_held(g.endpoint_id) < app_endpoint_cap(g.endpoint_id, g.ordering = 'fifo', ${config.webhooks.endpointConcurrency}::int)`;
  return new Set(rows.map((row) => row.id));
}

/** An attempt this long (or cut off by a timeout this long) makes its endpoint slow: capped even alone. */
export const SLOW_ATTEMPT_MS = 500;
/** How long an endpoint stays slow after such an attempt. */
const SLOW_FOR_MS = 60_000;
/**
 * How long an endpoint counts as quick after an attempt under SLOW_ATTEMPT_MS: while it does (and
 * is not slow), deliveries of other endpoints count as held up by it only once they have waited
 * a moment (migrations/024).
 */
const FAST_FOR_MS = 60_000;

/**
 * Records attempts and their outcomes, any number in one statement: each attempt row, each
 * delivery's new state (pending with `next_attempt_at`, done or dead) and, for retries, the
 * next jobs under the same `job_key` (one `add_jobs` call), and gives back the slots of records
 * that `release` them (no lock: claims count the slots held). Answers, per record, whether it was
 * written (not when the delivery was meanwhile finished, or another attempt was recorded: two
 * workers performing one delivery after a presumed crash) and whether deliveries are parked
 * behind a slot it gave back.
 *
 * The commit does not wait for the WAL flush (synchronous_commit off for this statement alone).
 * Nothing is lost: the
 * job's completion, committed durably by graphile-worker after the task returns, flushes the WAL
 * up to it; a server crash before that leaves the job, which runs again (at least once, same
 * `webhook-id`).
 */
export async function recordAttempts(sql: Queryable, records: readonly AttemptRecord[]): Promise<boolean[]> {
  const column = <T>(pick: (record: AttemptRecord) => T) => records.map(pick);
  const retrying = (record: AttemptRecord) => record.outcome === 'retry' && record.retry !== undefined;
  const rows = await sql<{ id: string; endpoint_id: string }[]>`
    with async as (select set_config('synchronous_commit', 'off', true) as off),
    input as (
      select * from unnest(
        ${column((r) => r.deliveryId)}::text[],
        ${column((r) => r.priorAttempts)}::int[],
        ${column((r) => (r.outcome === 'retry' ? 'pending' : r.outcome))}::text[],
        ${column((r) => recordedText(r.error))}::text[],
        ${column((r) => r.httpStatus)}::int[],
        ${column((r) => (retrying(r) ? Math.max(0, Math.round(r.retry!.delayMs)) : null))}::int[],
        ${column((r) => r.startedAt.toISOString())}::timestamptz[],
        ${column((r) => Math.round(r.durationMs))}::int[],
        ${column((r) => r.outcome)}::text[],
        ${column((r) => recordedText(r.excerpt))}::text[],
        ${column((r) => (retrying(r) ? JSON.stringify(r.retry!.payload) : null))}::text[],
        ${column((r) => String(r.release))}::text[]::boolean[],
        ${column((r) => Math.round(r.receiverMs ?? r.durationMs))}::int[]
      ) as i (id, prior, status, error, http, delay, started, duration, outcome, excerpt, payload, release, judged)
    ), d as (
      update app_webhook_deliveries as d set
        status = i.status,
        attempts = d.attempts + 1,
        last_error = i.error,
        last_status = i.http,
        next_attempt_at = case when i.delay is not null then now() + i.delay * interval '1 millisecond' end,
        completed_at = case when i.status in ('done', 'dead') then now() end,
        slot = d.slot and not i.release and i.status not in ('done', 'dead'),
        updated_at = now()
      from input as i
      where d.id = i.id and d.attempts = i.prior and d.status in ('pending', 'running') and (select off from async) = 'off'
      returning d.id, d.endpoint_id, d.attempts, d.next_attempt_at
    ), runs as (
      -- the run rows of quick claims (migrations/029), whether or not the record was written: a
      -- delivery finished meanwhile has no run left either
      delete from app_delivery_runs r using input as i where r.delivery_id = i.id
    ), a as (
      insert into app_webhook_attempts (delivery_id, attempt, started_at, duration_ms, status, outcome, error, excerpt)
      select d.id, d.attempts, i.started, i.duration, i.http, i.outcome, i.error, i.excerpt
        from d join input as i on i.id = d.id
      on conflict do nothing
    ), j as (
      select count(*) as added from graphile_worker.add_jobs(array(
        select ${deliveryJobSpec(sql, { id: sql`d.id`, payload: sql`i.payload::json`, runAt: sql`d.next_attempt_at` })}
          from d join input as i on i.id = d.id
         where d.next_attempt_at is not null
      ))
      where exists (select 1 from d where d.next_attempt_at is not null)
    ), pace_due as materialized (
      -- an attempt of SLOW_ATTEMPT_MS or more: its endpoint stays capped even alone for a while
      -- (migrations/022); a quicker one: its endpoint counts as quick for a while (migrations/024).
      -- Written at most about twice a window per endpoint, so the gate row is rarely touched. The
      -- rows to write are locked in key order first, as claims and wakes lock gates, so this
      -- statement and a wake of several endpoints never wait for each other in a cycle.
      select g.endpoint_id, s.slow, s.fast
        from app_endpoint_gate g
        join (select d.endpoint_id, bool_or(i.judged >= ${SLOW_ATTEMPT_MS}) as slow, bool_or(i.judged < ${SLOW_ATTEMPT_MS}) as fast
                from d join input as i on i.id = d.id group by d.endpoint_id) s on s.endpoint_id = g.endpoint_id
       where (s.slow and (g.slow_until is null or g.slow_until < now() + ${SLOW_FOR_MS / 2} * interval '1 millisecond'))
          or (s.fast and (g.fast_until is null or g.fast_until < now() + ${FAST_FOR_MS / 2} * interval '1 millisecond'))
       order by g.endpoint_id
         for no key update of g
    ), pace as (
      update app_endpoint_gate g
         set slow_until = case when p.slow then now() + ${SLOW_FOR_MS} * interval '1 millisecond' else g.slow_until end,
             fast_until = case when p.fast then now() + ${FAST_FOR_MS} * interval '1 millisecond' else g.fast_until end
        from pace_due p
       where g.endpoint_id = p.endpoint_id
    )
    select d.id, d.endpoint_id from d where (select count(*) from j) >= 0`;
  const written = new Set(rows.map((row) => row.id));
  return records.map((record) => written.has(record.deliveryId));
}

/**
 * Whether a failed attempt of endpoint `endpointId` at `startedAt` is its first failure after a
 * success, and no `app.endpoint.failing` went out for it within the hour: then marks it notified
 * (on its gate row) and answers the endpoint's owner (else undefined).
 */
export async function firstFailureAfterSuccess(
  sql: Queryable,
  endpointId: string,
  startedAt: Date,
): Promise<{ owner: string | null } | undefined> {
  const rows = await sql<{ owner: string | null }[]>`
    update app_endpoint_gate g set failing_notified_at = now()
     where g.endpoint_id = ${endpointId}
       and (g.failing_notified_at is null or g.failing_notified_at < now() - interval '1 hour')
       and (select a.outcome from app_webhook_attempts a join app_webhook_deliveries d on d.id = a.delivery_id
             where d.endpoint_id = ${endpointId} and a.started_at < ${startedAt}
             order by a.started_at desc limit 1) = 'done'
    returning g.owner`;
  return rows[0];
}

/** What `paceDelivery` did: the milliseconds until the start reserved (0: go now), and whether the delivery was sent back to wait for it. */
export interface Pace {
  waitMs: number;
  /**
   * Sent back to wait. False for a running delivery with a wait beyond the lead: it was no longer
   * running (another run recorded it); for a parked one: it was no longer parked (woken meanwhile),
   * and nothing was reserved.
   */
  deferred: boolean;
}

/**
 * Reserves the next start of the delivery's endpoint under `limit` deliveries per second (the
 * database's clock, shared by every worker): starts are paced 1/limit seconds apart, so no
 * one-second window holds more than `limit` of them. When the start reserved is more than
 * `leadMs` ahead, in the same statement, the delivery waits for it (not an attempt): pending
 * again, its job re-added under the same key to be due `leadMs` before that start, first among
 * the jobs due then (a start missed is a start lost), marked `paced` with the time reserved (ms
 * since the epoch, the database's clock: it goes at that time without reserving again unless it
 * runs late). With `release`, its slot goes back meanwhile (a FIFO endpoint's delivery keeps it:
 * the line waits with it).
 *
 * With `parked`, the delivery is one its claim just parked for a slot of its endpoint: if it is
 * still parked, it leaves the line for a start of its own, whatever the wait, and takes its slot
 * at that start (its job, due then, claims one); a delivery woken meanwhile keeps its wake and
 * reserves nothing.
 */
export async function paceDelivery(
  sql: Queryable,
  payload: DeliveryJobPayload,
  limit: number,
  options: { leadMs: number; release?: boolean; parked?: boolean },
): Promise<Pace> {
  const spacing = 1000 / limit;
  const { leadMs, release = false, parked = false } = options;
  const { paced: _paced, ...job } = payload;
  // a parked delivery is locked before its start is reserved: a wake that took it first is seen
  // (and nothing is reserved), and a wake coming after passes it by (skip locked)
  const rows = await sql<{ wait_ms: number; deferred: boolean }[]>`
    with ${
      parked
        ? sql`target as materialized (
      select x.id from app_webhook_deliveries x where x.id = ${payload.deliveryId} and x.parked_at is not null for update
    ),`
        : sql``
    } reserved as (
      insert into app_endpoint_pace as p (endpoint_id, next_at)
      select ${payload.endpointId}, clock_timestamp() + ${spacing} * interval '1 millisecond'
       where ${parked ? sql`exists (select 1 from target)` : sql`true`}
      on conflict (endpoint_id) do update set next_at = greatest(p.next_at, clock_timestamp()) + ${spacing} * interval '1 millisecond'
      returning p.next_at - ${spacing} * interval '1 millisecond' as start_at
    ), slot as (
      select r.start_at, greatest(0, ceil(extract(epoch from (r.start_at - clock_timestamp())) * 1000))::int as wait_ms from reserved r
    ), d as (
      update app_webhook_deliveries d
         set ${
           parked
             ? sql`parked_at = null, parked_job = null`
             : sql`status = 'pending', slot = d.slot and not ${release}::boolean`
         }, next_attempt_at = s.start_at, updated_at = now()
        from slot s
       where d.id = ${payload.deliveryId}
         and ${parked ? sql`d.parked_at is not null and d.status = 'pending'` : sql`d.status = 'running' and s.wait_ms > ${leadMs}::int`}
      returning d.id, d.next_attempt_at
    ), j as (
      select count(*) as added from graphile_worker.add_jobs(array(
        select ${deliveryJobSpec(sql, {
          id: sql`d.id`,
          payload: sql`jsonb_set(${JSON.stringify(job)}::text::jsonb, '{paced}', to_jsonb(extract(epoch from d.next_attempt_at) * 1000))::json`,
          runAt: sql`d.next_attempt_at - ${leadMs}::int * interval '1 millisecond'`,
          first: true,
        })} from d
      ))
      where exists (select 1 from d)
    )
    select s.wait_ms, exists (select 1 from d) as deferred from slot s where (select count(*) from j) >= 0`;
  return rows.length === 0 ? { waitMs: 0, deferred: false } : { waitMs: rows[0].wait_ms, deferred: rows[0].deferred };
}

/** `recordAttempts` for one attempt. */
export async function recordAttempt(sql: Queryable, record: AttemptRecord): Promise<boolean> {
  return (await recordAttempts(sql, [record]))[0];
}

/**
 * Makes delivery `id` dead without sending it (endpoint disabled, secret unreadable, no secret):
 * no attempt is recorded, `error` says why; a slot it held is free again. Answers false when it was no longer pending/running.
 */
export async function markUnsent(sql: Queryable, id: string, error: string): Promise<boolean> {
  const rows = await sql`
    with run as (delete from app_delivery_runs where delivery_id = ${id})
    update app_webhook_deliveries
       set status = 'dead', last_error = ${recordedText(error)}::text, next_attempt_at = null, completed_at = now(), updated_at = now(),
           slot = false, parked_at = null, parked_job = null
     where id = ${id} and status in ('pending', 'running')
    returning id`;
  return rows.length === 1;
}

/**
 * After a 410 (the endpoint is disabled; nothing further is queued for it), in one
 * transaction with the attempt that got it: records the attempt (dead), disables the endpoint's
 * gate (so no claim or emit uses it from the commit on), and makes every other PENDING delivery of
 * the endpoint dead with a reason and removes its job. The caller then disables the endpoint's
 * record (endpoints/update.ts `disableGone`), which the gate follows. Deliveries running at that
 * moment finish their attempt; their next one finds the endpoint disabled and is not sent.
 * Answers how many pending deliveries were stopped (with the endpoint's owner and the reason), or
 * null when the attempt was not recorded (see `recordAttempt`).
 */
export async function recordGone(
  sql: Sql,
  record: AttemptRecord & { endpointId: string },
): Promise<{ stopped: number; owner: string | null; reason: string } | null> {
  return transaction(sql, async (tx) => {
    if (!(await recordAttempt(tx, record))) return null;
    const reason = `the receiver answered 410 Gone to delivery ${record.deliveryId}`;
    const endpoints = await tx<{ owner: string | null }[]>`
      update app_endpoint_gate set disabled_at = coalesce(disabled_at, now())
       where endpoint_id = ${record.endpointId}
      returning owner`;
    const stopped = await tx<{ id: string }[]>`
      with d as (
        update app_webhook_deliveries
           set status = 'dead', next_attempt_at = null, completed_at = now(), updated_at = now(),
               slot = false, parked_at = null, parked_job = null,
               last_error = ${`not sent: endpoint ${record.endpointId} was disabled after ${reason}`}::text
         where endpoint_id = ${record.endpointId} and status = 'pending' and id <> ${record.deliveryId}
        returning id
      )
      select d.id, graphile_worker.remove_job(d.id) from d`;
    return { stopped: stopped.length, owner: endpoints[0]?.owner ?? null, reason };
  });
}

/** An attempt on the quick path (migrations/029) running this long is shown `running` on its delivery's row. */
export const RUN_SHOWN_AFTER_MS = 500;

/**
 * For the recovery sweep, on the run rows of quick claims (migrations/029): a delivery whose run
 * is older than RUN_SHOWN_AFTER_MS is marked `running` on its row (since its run began, as a
 * claim off the quick path marks it), so a receiver that hangs is seen as one; a run row whose
 * delivery is finished or gone (an attempt that ended without its record: the delivery died
 * meanwhile, its endpoint was removed) is deleted, giving back the slot it held. So is the run row
 * of a parked delivery: no attempt of it is in flight (a park ends its job), and the row is a
 * crashed worker's, left when the delivery's job ran again and found the endpoint full, full of
 * such rows among others: kept, they held the endpoint's slots for good and every later delivery
 * to it parked behind them. Such a delivery shown `running` goes back to `pending`. Answers how
 * many rows were shown and dropped.
 */
export async function sweepRuns(sql: Queryable): Promise<{ shown: number; dropped: number }> {
  // driven by the run rows (a few, one per attempt in flight): each delivery is looked up by its
  // primary key, never by a scan of the deliveries
  const [row] = await sql<{ shown: number; dropped: number }[]>`
    with shown as (
      update app_webhook_deliveries d set status = 'running', updated_at = r.started_at
        from app_delivery_runs r
       where d.id = any(array(select x.delivery_id from app_delivery_runs x
                               where x.started_at < now() - ${RUN_SHOWN_AFTER_MS}::int * interval '1 millisecond'))
         and r.delivery_id = d.id and d.status = 'pending' and d.parked_at is null
      returning d.id
    ), dropped as (
      delete from app_delivery_runs r
       where not coalesce((select d.status in ('pending', 'running') and d.parked_at is null
                             from app_webhook_deliveries d where d.id = r.delivery_id), false)
      returning r.delivery_id
    ), parked as (
      update app_webhook_deliveries d set status = 'pending'
       where d.id = any(array(select x.delivery_id from dropped x))
         and d.status = 'running' and d.parked_at is not null
    )
    select (select count(*) from shown)::int as shown, (select count(*) from dropped)::int as dropped`;
  return row;
}
