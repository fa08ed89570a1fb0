/**
 * One run of an `app/webhook` job: take up the delivery, sign and POST it, and record what the
 * receiver did (docs/receiving.md says what a receiver gets and what its answer does). The function
 * never throws for anything a receiver, the network, the endpoint or its secrets do; it throws only
 * when the database fails, and then the recovery sweep (worker/heartbeat.ts) arms the job again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import type { Config } from '../../shared/config/index.ts';
import type { Sql } from '../../shared/db/connect.ts';
import { isAppError } from '../../shared/errors/app-error.ts';
import type { Logger } from '../../shared/log/logger.ts';
import { headerNameProblem } from '../../shared/webhooks/endpoints/headers.ts';
import { emitOperational, isOperational } from '../../shared/webhooks/operational.ts';
import { signedHeaders } from '../../shared/webhooks/signing.ts';
import { endpointRecords } from '../../shared/webhooks/endpoints/records.ts';
import { endpointStoreOf } from '../../shared/webhooks/endpoints/store.ts';
import { disableForService } from '../../shared/webhooks/endpoints/update.ts';
import type { EndpointStore } from '../../shared/webhooks/endpoint-stores/types.ts';
import { retryDelayMs } from './backoff.ts';
import { classifyAttempt, type AttemptOutcome } from './outcome.ts';
import { idTime } from '../../shared/webhooks/ids.ts';
import type { DeliveryOutcomeLabel, Metrics } from '../../shared/metrics/registry.ts';
import type { AttemptResult } from './post.ts';
import { sendDelivery } from './send.ts';
import type { Destinations } from '../destinations/index.ts';
import type { HostLookup } from '../../shared/webhooks/address-rules.ts';
import { createBatcher } from './batch.ts';
import { createOpener, type Opener } from './opener.ts';
import { processLateness, type Lateness } from './lateness.ts';
import {
  claimDeliveries,
  deliveryStatus,
  withParked,
  withSlotFree,
  firstFailureAfterSuccess,
  markUnsent,
  paceDelivery,
  recordAttempts,
  recordGone,
  type AttemptRecord,
  type Claim,
  type ClaimedDelivery,
  type ClaimRequest,
  type DeliveryJobPayload,
} from '../../shared/webhooks/deliveries/store.ts';
import { wakeEndpoints } from '../../shared/webhooks/deliveries/flow.ts';
import { createSlotWaits, type SlotWaits } from './slot-waits.ts';
import type { WakeUps } from './wake-ups.ts';
import { USER_AGENT } from './user-agent.ts';
import { inAttemptSpan, type AttemptSpan } from './attempt-span.ts';
import type { Telemetry } from '../../shared/telemetry/start.ts';
import { parseTraceparent } from '../../shared/telemetry/traceparent.ts';

/** What a delivery run needs: one object per worker process. */
export interface DeliveryDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  /** The worker's pinned-address dispatcher (pinned-dispatcher.ts). */
  dispatcher: Dispatcher;
  /** The worker's broker senders (worker/destinations/); absent: broker URLs are not sent. */
  destinations?: Destinations;
  /** Resolver of broker host names, when not the system's. */
  lookup?: HostLookup;
  /** The endpoint store (`webhooks.store`); absent: `webhooks.table` in this database. */
  endpoints?: EndpointStore;
  /** Source of the backoff jitter (default Math.random). */
  random?: () => number;
  /** The process's shared queries (`deliveryQueries`); made per call when absent. */
  queries?: DeliveryQueries;
  /** The process's metrics (shared/metrics/registry.ts); nothing is recorded when absent. */
  metrics?: Metrics;
  /** The process's tracing (shared/telemetry/start.ts); absent or off: no attempt span, no `traceparent` header. */
  telemetry?: Pick<Telemetry, 'enabled'>;
  /**
   * The process's wake-ups of its job queue (wake-ups.ts): a delivery sent back to wait for its
   * rate-limited start asks for one when its job is due (`PACE_LEAD_MS` before that start).
   * Absent (a run outside a worker): the job is found at the queue's next poll.
   */
  wakeUps?: WakeUps;
}

/**
 * The reads and writes of every delivery, shared by the runs of one process so that
 * concurrent runs share round trips (batch.ts): claims go out together, and outcomes are
 * recorded together.
 */
export interface DeliveryQueries {
  claim(request: ClaimRequest): Promise<Claim>;
  record(record: AttemptRecord): Promise<boolean>;
  /** Opens endpoints' sealed values, each once per process (opener.ts). */
  opener: Opener;
  /** How late the process has been running (lateness.ts): taken out of an attempt's time when judging its endpoint slow. */
  lateness: Lateness;
  /** The process's patience for endpoints at their cap (slot-waits.ts). */
  slots: SlotWaits;
  /** Whether the endpoint has a slot free now (asked by a claim that parked, after its commit). */
  slotFree(endpointId: string): Promise<boolean>;
  /** Whether deliveries are parked for the endpoint (asked after giving a slot back, after its commit). */
  parkedFor(endpointId: string): Promise<boolean>;
  /**
   * Wakes the deliveries parked for the endpoint (flow.ts `admit`), in one transaction with the
   * other wakes this process asked meanwhile: runs finishing together for endpoints with a line (a
   * burst at start, several workers) lock each gate once per transaction, not once per run. Each
   * wake is asked after its release committed, and its transaction starts after it was asked.
   */
  wake(endpointId: string): Promise<void>;
}

/** The batched queries of one worker process (`maxSize`: most deliveries per statement). */
export function deliveryQueries(
  deps: Pick<DeliveryDeps, 'config' | 'sql' | 'endpoints'>,
  options: { maxSize?: number } = {},
): DeliveryQueries {
  const maxSize = options.maxSize ?? Math.max(1, deps.config.webhooks.concurrency * 2);
  const details = endpointRecords(endpointStoreOf(deps));
  const claims = createBatcher(
    (requests: ClaimRequest[]) => claimDeliveries(deps.sql, deps.config, requests, details),
    {
      maxSize,
    },
  );
  const records = createBatcher((items: AttemptRecord[]) => recordAttempts(deps.sql, items), { maxSize });
  const frees = createBatcher(
    async (endpointIds: string[]) => {
      const free = await withSlotFree(deps.sql, deps.config, endpointIds);
      return endpointIds.map((endpointId) => free.has(endpointId));
    },
    { maxSize },
  );
  const parked = createBatcher(
    async (endpointIds: string[]) => {
      const waiting = await withParked(deps.sql, endpointIds);
      return endpointIds.map((endpointId) => waiting.has(endpointId));
    },
    { maxSize },
  );
  const wakes = createBatcher(
    async (endpointIds: string[]) => {
      await wakeEndpoints(deps.sql, deps.config, endpointIds);
      return endpointIds.map(() => undefined);
    },
    { maxSize },
  );
  return {
    parkedFor: (endpointId) => parked.add(endpointId),
    wake: (endpointId) => wakes.add(endpointId),
    claim: (request) => claims.add(request),
    record: (record) => records.add(record),
    opener: createOpener(deps.config),
    lateness: processLateness(),
    slots: createSlotWaits(),
    slotFree: (endpointId) => frees.add(endpointId),
  };
}

/** What one run came to, for logs and tests. */
export type DeliveryRun =
  | { result: 'skipped'; reason: 'missing' | 'finished' | 'raced' }
  | { result: 'unsent'; error: string }
  | { result: 'deferred'; waitMs: number }
  | { result: 'parked' }
  | {
      result: 'done' | 'retry' | 'dead';
      attempt: number;
      status: number | null;
      error?: string;
      delayMs?: number;
      endpointDisabled?: boolean;
    };

/** Code of the failure kept when the endpoint's secrets cannot be opened (secret-box.ts). */
const SECRET_UNREADABLE = 'APP_WEBHOOK_SECRET_UNREADABLE';

/**
 * The checked payload of an `app/webhook` job, or null when it is not one (a hand-made job):
 * such a job is logged and dropped rather than failed, so it cannot loop.
 */
export function parseDeliveryPayload(payload: unknown): DeliveryJobPayload | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const { deliveryId, endpointId, event, body, priorAttempts, paced, traceparent } = payload as Record<string, unknown>;
  if (typeof deliveryId !== 'string' || deliveryId === '') return null;
  if (typeof endpointId !== 'string' || typeof event !== 'string') return null;
  if (body !== undefined && body !== null && typeof body !== 'string') return null;
  if (priorAttempts !== undefined && (!Number.isInteger(priorAttempts) || (priorAttempts as number) < 0)) return null;
  return {
    deliveryId,
    endpointId,
    event,
    ...(typeof body === 'string' ? { body } : {}),
    ...(priorAttempts === undefined ? {} : { priorAttempts: priorAttempts as number }),
    ...(paced === true || (typeof paced === 'number' && Number.isFinite(paced))
      ? { paced: paced as boolean | number }
      : {}),
    // a malformed one is dropped: the attempt then starts a trace of its own
    ...(parseTraceparent(traceparent) ? { traceparent: traceparent as string } : {}),
  };
}

/**
 * The request headers of one attempt: the endpoint's own headers (any reserved or hop-by-hop
 * name is dropped, though registration refuses them already), then `content-type`, `user-agent`
 * and the three Standard Webhooks headers with a fresh timestamp and one `v1,` signature per
 * secret. No unsigned routing header: the event type travels only in the body.
 */
export function deliveryHeaders(input: {
  id: string;
  body: string;
  secrets: readonly string[];
  endpointHeaders: Record<string, string>;
  now?: number;
}): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.endpointHeaders)) {
    if (headerNameProblem(name) === null) headers[name] = value;
  }
  headers['content-type'] = 'application/json; charset=utf-8';
  headers['user-agent'] = USER_AGENT;
  const timestamp = Math.floor((input.now ?? Date.now()) / 1000);
  return { ...headers, ...signedHeaders({ id: input.id, timestamp, body: input.body, secrets: input.secrets }) };
}

/**
 * The number of attempt `attempt` within its series (1-based): attempts since the series began
 * (`priorAttempts`, set by `jobs:retry`). Never below 1, whatever a payload says.
 */
export const attemptInSeries = (attempt: number, payload: Pick<DeliveryJobPayload, 'priorAttempts'>): number =>
  Math.max(1, attempt - (payload.priorAttempts ?? 0));

/** The outcome of an attempt, with the attempts budget applied: a retry past it is dead. */
export function decide(
  result: AttemptResult,
  attempt: number,
  payload: DeliveryJobPayload,
  config: Pick<Config, 'webhooks'>,
): AttemptOutcome {
  const outcome = classifyAttempt(result);
  const used = attemptInSeries(attempt, payload);
  if (outcome.result === 'retry' && used >= config.webhooks.maxAttempts) {
    return {
      ...outcome,
      result: 'dead',
      error: `attempts exhausted (${used} of ${config.webhooks.maxAttempts}); last: ${outcome.error ?? 'failed'}`,
    };
  }
  return outcome;
}

/**
 * A run that sends or records nothing more: the delivery is finished, gone, or (`raced`) its row
 * changed under this run. A row that changed because it is gone (its endpoint removed while the
 * attempt ran) is said as such, not as another run having recorded it.
 */
async function skip(deps: DeliveryDeps, id: string, raced = false): Promise<DeliveryRun> {
  // asked after a race too; a lookup that fails there leaves the race's own warning
  const status = await deliveryStatus(deps.sql, id).catch((error: unknown) => {
    if (!raced) throw error;
    return undefined;
  });
  if (status === null) {
    deps.log.info(
      { delivery: id },
      raced
        ? 'delivery no longer exists (its endpoint was removed, or the prune took it): this attempt is not recorded'
        : 'delivery no longer exists (its endpoint was removed, or the prune took it): nothing sent',
    );
    return { result: 'skipped', reason: 'missing' };
  }
  if (raced) {
    deps.log.warn(
      { delivery: id },
      'delivery: another run recorded this delivery meanwhile; this attempt is not recorded',
    );
    return { result: 'skipped', reason: 'raced' };
  }
  deps.log.info({ delivery: id, status }, 'delivery already finished: nothing sent');
  return { result: 'skipped', reason: 'finished' };
}

/**
 * Wakes the deliveries parked for endpoint `endpointId` when a statement left its gate with a
 * free slot and someone waiting: with the process's other wakes when its queries are given. A
 * failure is only logged: the recovery sweep wakes them too.
 */
async function wakeIfOwed(
  deps: DeliveryDeps,
  queries: DeliveryQueries | undefined,
  endpointId: string,
  owed: boolean,
): Promise<void> {
  if (!owed) return;
  const woken = queries ? queries.wake(endpointId) : wakeEndpoints(deps.sql, deps.config, [endpointId]);
  await woken.catch((error: unknown) => {
    deps.log.warn(
      { err: error, endpoint: endpointId },
      'could not wake the deliveries parked for this endpoint; the recovery sweep will',
    );
  });
}

/**
 * After a slot of `claimed`'s endpoint was given back (committed): a run of this process waiting
 * for it asks again, and deliveries parked for it are woken. A FIFO line always asks under its
 * lock: an emit that parked meanwhile is seen there.
 */
async function releasedSlot(deps: DeliveryDeps, queries: DeliveryQueries, claimed: ClaimedDelivery): Promise<void> {
  queries.slots.released(claimed.endpointId);
  const parked = claimed.fifo || (await queries.parkedFor(claimed.endpointId).catch(() => true));
  await wakeIfOwed(deps, queries, claimed.endpointId, parked);
}

/**
 * How long before the start reserved for it a delivery waiting under its endpoint's `rateLimit`
 * is due: its job's fetch and its claim take place meanwhile, then the run holds in process for
 * what is left (at most this), so the start is exact instead of late by a fetch and a claim. A
 * start reserved within this of now is held for likewise, without a trip through the queue.
 */
export const PACE_LEAD_MS = 25;

/**
 * Under the endpoint's `rateLimit`: when may `claimed` start? Answers the milliseconds to hold
 * first (0: now), or, when it was sent back to wait for the start reserved for it (not an
 * attempt), the run's result. A run not yet paced reserves its start
 * (shared/webhooks/deliveries/store.ts `paceDelivery`); a paced run goes at the start it
 * reserved, unless it comes more than half a spacing after it (by the database's clock at its
 * claim, the clock starts are reserved by): every start then lies
 * within half a spacing after its reserved one, so no one-second window holds more than
 * `rateLimit` + 1. A late run, or one far earlier than its lead (a job moved by hand), reserves
 * anew.
 */
async function paceStart(
  deps: DeliveryDeps,
  queries: DeliveryQueries,
  payload: DeliveryJobPayload,
  claimed: ClaimedDelivery & { rateLimit: number },
): Promise<number | DeliveryRun> {
  const spacing = 1000 / claimed.rateLimit;
  if (payload.paced === true) return 0; // written before the time reserved was kept: it goes
  if (typeof payload.paced === 'number') {
    const late = (claimed.clockMs ?? Date.now()) - payload.paced;
    if (late <= spacing / 2 && late >= -2 * PACE_LEAD_MS) return Math.max(0, -late);
  }
  const release = claimed.slot && !claimed.fifo;
  const pace = await paceDelivery(deps.sql, payload, claimed.rateLimit, { leadMs: PACE_LEAD_MS, release });
  if (pace.waitMs <= PACE_LEAD_MS) return pace.waitMs;
  if (!pace.deferred) return skip(deps, claimed.id, true);
  // its job is due a lead before its start: this process's queue fetches it then, not at its next poll
  deps.wakeUps?.at(Date.now() + pace.waitMs - PACE_LEAD_MS);
  if (release) await releasedSlot(deps, queries, claimed);
  return { result: 'deferred', waitMs: pace.waitMs };
}

/** Rare, so not batched. */
async function unsent(deps: DeliveryDeps, claimed: ClaimedDelivery, error: string): Promise<DeliveryRun> {
  if (!(await markUnsent(deps.sql, claimed.id, error))) return skip(deps, claimed.id, true);
  await wakeIfOwed(deps, deps.queries, claimed.endpointId, claimed.slot); // the slot it held is free: whoever waits for it goes
  deps.metrics?.deliveries.inc({ outcome: 'dead' });
  deps.log.warn({ delivery: claimed.id, endpoint: claimed.endpointId, error }, 'delivery dead without being sent');
  return { result: 'unsent', error };
}

/** Records one attempt in the process's metrics: its outcome, the POST's duration, and for a first attempt the delay since the emit. */
function observeAttempt(
  metrics: Metrics | undefined,
  attempt: { outcome: DeliveryOutcomeLabel; durationMs: number | undefined; lagMs: number | undefined },
): void {
  if (!metrics) return;
  metrics.deliveries.inc({ outcome: attempt.outcome });
  if (attempt.durationMs !== undefined) metrics.deliveryDuration.observe(attempt.durationMs / 1000);
  if (attempt.lagMs !== undefined) metrics.deliveryLag.observe(Math.max(0, attempt.lagMs) / 1000);
}

/**
 * Operational events of a failed attempt (not of an operational event's delivery): the first
 * failure after a success (`app.endpoint.failing`, at most hourly) and a delivery that died
 * (`app.delivery.dead`).
 */
async function announceFailure(
  deps: DeliveryDeps,
  claimed: ClaimedDelivery,
  failed: { id: string; event: string; startedAt: Date; dead: boolean; error: string | null },
): Promise<void> {
  const failing = await firstFailureAfterSuccess(deps.sql, claimed.endpointId, failed.startedAt).catch(
    (error: unknown) => {
      deps.log.warn(
        { err: error, endpoint: claimed.endpointId },
        'could not tell whether the endpoint just started failing',
      );
      return undefined;
    },
  );
  if (failing)
    await emitOperational(
      deps,
      'app.endpoint.failing',
      { endpointId: claimed.endpointId, url: claimed.url, deliveryId: failed.id, error: failed.error },
      failing.owner,
    );
  if (failed.dead) {
    await emitOperational(
      deps,
      'app.delivery.dead',
      {
        deliveryId: failed.id,
        endpointId: claimed.endpointId,
        eventType: failed.event,
        lastError: failed.error,
        attempts: claimed.attempts + 1,
      },
      claimed.owner,
    );
  }
}

/**
 * Claims a delivery; when its endpoint is at its cap, waits in this process for one of the
 * endpoint's slots as long as the endpoint's patience allows (slot-waits.ts), then parks it.
 */
async function claimPatiently(
  queries: DeliveryQueries,
  request: ClaimRequest,
): Promise<Exclude<Claim, { full: true }>> {
  const started = Date.now();
  // no patience for this endpoint (slow, or not seen yet): park at once if it is full
  let claimed = await queries.claim({ ...request, park: queries.slots.patience(request.job?.endpointId ?? '') === 0 });
  while (claimed !== null && 'full' in claimed) {
    const left = queries.slots.patience(claimed.endpointId) - (Date.now() - started);
    const released = left > 0 && (await queries.slots.wait(claimed.endpointId, left));
    claimed = await queries.claim({ ...request, park: !released });
  }
  return claimed;
}

/** Performs one run of delivery `payload.deliveryId` (see the file comment). */
export async function performDelivery(deps: DeliveryDeps, payload: DeliveryJobPayload): Promise<DeliveryRun> {
  const { sql, log } = deps;
  const queries = deps.queries ?? deliveryQueries(deps, { maxSize: 1 });
  const id = payload.deliveryId;
  // One read: the delivery, its endpoint and the endpoint's secrets as they are now (which
  // secrets sign is never cached: a rotation without grace stops the old secret at once; only
  // the opening of a sealed value is kept, by its sealed text, opener.ts).
  const claimed = await claimPatiently(queries, { id, withBody: payload.body === undefined, job: payload });
  if (claimed === null) return skip(deps, id);
  if ('parked' in claimed) {
    // A run under a rateLimit that has no start reserved yet leaves the line at once for a start
    // of its own, and takes a slot at that start: waiting in the line, it would be woken into a
    // slot only to reserve its start and give the slot back, and such wakes, one after another,
    // keep the endpoint's slots from the runs whose start has come. A paced run (its start
    // missed: the endpoint is at its cap with attempts in flight) waits in the line like any other.
    if (claimed.rateLimit !== null && !claimed.fifo && typeof payload.paced !== 'number') {
      const pace = await paceDelivery(sql, payload, claimed.rateLimit, { leadMs: PACE_LEAD_MS, parked: true });
      if (pace.deferred) {
        deps.wakeUps?.at(Date.now() + pace.waitMs - PACE_LEAD_MS);
        return { result: 'deferred', waitMs: pace.waitMs };
      }
    }
    // its endpoint has its cap of deliveries in flight: this job ends, a finishing one wakes it
    log.debug(
      { delivery: id, endpoint: claimed.endpointId },
      'delivery parked: its endpoint is at its concurrency cap',
    );
    // a slot given back while this claim counted (seen now that the park committed): wake
    const free = await queries.slotFree(claimed.endpointId).catch(() => false);
    await wakeIfOwed(deps, queries, claimed.endpointId, free);
    return { result: 'parked' };
  }
  if (claimed.disabledAt !== null) {
    return unsent(
      deps,
      claimed,
      `not sent: endpoint ${claimed.endpointId} is disabled (${claimed.disabledReason ?? 'no reason given'})`,
    );
  }
  if (claimed.endpointOwner !== claimed.owner) {
    return unsent(
      deps,
      claimed,
      `not sent: endpoint ${claimed.endpointId} was moved to another owner after this delivery's event was emitted`,
    );
  }
  let secrets: string[];
  let endpointHeaders: Record<string, string>;
  let url: string; // a broker url's credentials opened for this attempt only (never logged or stored)
  try {
    secrets = claimed.sealed.map((sealed) => queries.opener.secret(sealed, claimed.endpointId));
    endpointHeaders = queries.opener.headers(claimed.headers, claimed.endpointId);
    url = queries.opener.url(claimed.url, claimed.endpointId);
  } catch (error) {
    if (isAppError(error) && error.code === SECRET_UNREADABLE)
      return unsent(deps, claimed, `${SECRET_UNREADABLE}: ${error.message}`);
    throw error;
  }
  if (secrets.length === 0) {
    return unsent(
      deps,
      claimed,
      `not sent: endpoint ${claimed.endpointId} has no signing secret (rotate it to make one)`,
    );
  }

  if (claimed.rateLimit !== null) {
    const hold = await paceStart(deps, queries, payload, { ...claimed, rateLimit: claimed.rateLimit });
    if (typeof hold !== 'number') return hold;
    if (hold > 0) await sleep(hold);
  }

  const attempt = { deliveryId: id, endpointId: claimed.endpointId, event: payload.event, url: claimed.url };
  return inAttemptSpan(deps, { ...attempt, number: claimed.attempts + 1, traceparent: payload.traceparent }, (span) =>
    attemptDelivery(deps, queries, payload, claimed, { secrets, endpointHeaders, url }, span),
  );
}

/**
 * The attempt itself, inside its span (attempt-span.ts): the signed POST, its outcome recorded,
 * the endpoint's slot given back, what the failure announces, the log line.
 */
async function attemptDelivery(
  deps: DeliveryDeps,
  queries: DeliveryQueries,
  payload: DeliveryJobPayload,
  claimed: ClaimedDelivery,
  { secrets, endpointHeaders, url }: { secrets: string[]; endpointHeaders: Record<string, string>; url: string },
  span: AttemptSpan,
): Promise<DeliveryRun> {
  const { config, sql, log } = deps;
  const id = payload.deliveryId;
  const body = payload.body ?? claimed.body;
  const attempt = claimed.attempts + 1;
  const startedAt = new Date();
  const since = queries.lateness.mark();
  const result = await sendDelivery(deps, {
    url,
    headers: span.headers(deliveryHeaders({ id, body, secrets, endpointHeaders, now: startedAt.getTime() })),
    body,
    timeoutMs: config.webhooks.timeout,
    allowHttp: config.webhooks.allowHttp,
    allowPrivate: config.webhooks.allowPrivate,
  });
  // the receiver's part of the attempt's time: without what this process's own delays may have added (lateness.ts)
  const receiverMs =
    'durationMs' in result ? Math.max(0, result.durationMs - queries.lateness.inflationSince(since)) : 0;
  const outcome = decide(result, attempt, payload, config);
  span.record(result, outcome.disableEndpoint ? 'gone' : outcome.result);
  observeAttempt(deps.metrics, {
    outcome: outcome.disableEndpoint ? 'gone' : result.kind === 'address-refused' ? 'refused' : outcome.result,
    durationMs: 'durationMs' in result ? result.durationMs : undefined,
    lagMs:
      claimed.attempts === 0 && !payload.priorAttempts
        ? startedAt.getTime() - (idTime(id) ?? startedAt.getTime())
        : undefined,
  });
  const delayMs =
    outcome.result === 'retry'
      ? retryDelayMs(attemptInSeries(attempt, payload), config.webhooks.backoff, deps.random)
      : undefined;
  const httpStatus = result.kind === 'response' ? result.status : null;
  const record: AttemptRecord = {
    deliveryId: id,
    priorAttempts: claimed.attempts,
    startedAt,
    durationMs: 'durationMs' in result ? result.durationMs : 0,
    receiverMs,
    httpStatus,
    outcome: outcome.result,
    error: outcome.error ?? null,
    // a broker's acknowledgement (an entry id, a stream sequence) is kept where an answer's excerpt is
    excerpt: result.kind === 'response' ? result.excerpt : result.kind === 'acknowledged' ? result.detail : null,
    endpointId: claimed.endpointId,
    // a FIFO endpoint's delivery keeps its slot while it waits for a retry: the line waits with it
    release: claimed.slot && (outcome.result !== 'retry' || !claimed.fifo),
    ...(delayMs === undefined
      ? {}
      : {
          retry: {
            delayMs,
            payload: {
              deliveryId: id,
              endpointId: claimed.endpointId,
              event: payload.event,
              ...(payload.priorAttempts ? { priorAttempts: payload.priorAttempts } : {}),
              ...(payload.traceparent ? { traceparent: payload.traceparent } : {}),
            },
          },
        }),
  };

  const operational = isOperational(payload.event); // its deliveries never raise operational events
  if (outcome.disableEndpoint) {
    const gone = await recordGone(sql, record);
    if (gone === null) return skip(deps, id, true);
    await disableForService(deps, claimed.endpointId, 'gone', gone.reason).catch((error: unknown) =>
      log.error(
        { err: error, endpoint: claimed.endpointId },
        'receiver answered 410: the endpoint no longer gets deliveries, but its record could not be marked disabled',
      ),
    );
    log.warn(
      { delivery: id, endpoint: claimed.endpointId, stopped: gone.stopped },
      'receiver answered 410: endpoint disabled, its pending deliveries stopped',
    );
    if (!operational)
      await emitOperational(
        deps,
        'app.endpoint.disabled',
        { endpointId: claimed.endpointId, url: claimed.url, reason: gone.reason },
        gone.owner,
      );
    return { result: 'dead', attempt, status: httpStatus, error: outcome.error, endpointDisabled: true };
  }
  if ('durationMs' in result) queries.slots.observe(claimed.endpointId, receiverMs);
  if (!(await queries.record(record))) return skip(deps, id, true);
  if (record.release) await releasedSlot(deps, queries, claimed);
  if (!operational && outcome.result !== 'done')
    await announceFailure(deps, claimed, {
      id,
      event: payload.event,
      startedAt,
      dead: outcome.result === 'dead',
      error: outcome.error ?? null,
    });
  const line = {
    delivery: id,
    endpoint: claimed.endpointId,
    attempt,
    status: httpStatus,
    error: outcome.error,
    delayMs,
  };
  if (outcome.result === 'done') log.debug(line, 'delivered');
  else if (outcome.result === 'retry') log.info(line, 'delivery attempt failed; retry scheduled');
  else log.warn(line, 'delivery dead');
  return {
    result: outcome.result,
    attempt,
    status: httpStatus,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
    ...(delayMs === undefined ? {} : { delayMs }),
  };
}
