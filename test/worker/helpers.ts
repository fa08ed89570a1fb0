/**
 * Shared by the delivery worker's tests: endpoints registered and events emitted through the
 * webhook core, workers started on the test database, and small polling helpers.
 */
import { after } from 'node:test';
import type { Config } from '../../shared/config/index.ts';
import type { Sql } from '../../shared/db/connect.ts';
import { createLogger, type Logger } from '../../shared/log/logger.ts';
import type { HostLookup } from '../../shared/webhooks/address-rules.ts';
import { emit } from '../../shared/webhooks/events/emit.ts';
import type { RegisteredEndpoint, RegisterOptions } from '../../shared/webhooks/endpoints/register.ts';
import { runWorkerOnce, startWorker, type WorkerHandle, type WorkerOptions } from '../../worker/runner.ts';
import { tasks } from '../../worker/tasks/index.ts';
import type { TestDatabase } from '../helpers/database.ts';
import { eventually } from '../helpers/poll.ts';
import { registerEndpoint } from '../../shared/webhooks/endpoints/index.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

/** Flags of a fast test configuration: short timeout, quick polling, fast backoff. */
export const FAST = {
  webhooks: {
    timeout: '1s',
    concurrency: 8,
    maxAttempts: 3,
    backoff: { base: '50ms', factor: 2, max: '1s', jitter: 0.2 },
  },
  worker: { pollInterval: '25ms', heartbeat: '200ms', staleAfter: '1s' },
};

/** Deep merge of flag objects (later wins). */
export function flags(...layers: Record<string, unknown>[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      const current = out[key];
      out[key] =
        value !== null &&
        typeof value === 'object' &&
        !Array.isArray(value) &&
        current !== null &&
        typeof current === 'object'
          ? flags(current as Record<string, unknown>, value as Record<string, unknown>)
          : value;
    }
  }
  return out;
}

export interface Harness {
  db: TestDatabase;
  config: Config;
  sql: Sql;
  log: Logger;
}

/** The test database with `config` made of FAST and `extra` flags. */
export function harness(db: TestDatabase, extra: Record<string, unknown> = {}, env?: Record<string, string>): Harness {
  const config = db.configWith(flags(FAST, extra), env);
  return { db, config, sql: db.sql, log: createLogger(config, { name: 'test' }) };
}

let owners = 0;

/**
 * Registers an endpoint for every event at `url` (loopback allowed by the test config), owned
 * by a tenant of its own unless `owner` is given, so tests sharing a database do not fan out to
 * each other's endpoints.
 */
export function endpoint(
  h: Harness,
  url: string,
  options: Partial<RegisterOptions> & { lookup?: HostLookup } = {},
): Promise<RegisteredEndpoint> {
  const { lookup, ...rest } = options;
  owners += 1;
  return registerEndpoint({ config: h.config, sql: h.sql, log: h.log, ...(lookup ? { lookup } : {}) }, OPERATOR, {
    url,
    events: ['*'],
    owner: `tenant-${process.pid}-${owners}`,
    ...rest,
  });
}

/** Emits `event` with `data` to the tenant of `to` and answers the delivery ids. */
export async function send(
  h: Harness,
  to: { owner: string | null },
  event = 'order.created',
  data: unknown = { n: 1 },
): Promise<string[]> {
  const deliveries = await emit({ config: h.config, sql: h.sql, log: h.log }, event, data, { owner: to.owner });
  return deliveries.map((delivery) => delivery.id);
}

/** Performs every due job once (the `jobs --once` path). */
export function runOnce(h: Harness, options: WorkerOptions = {}): Promise<void> {
  return runWorkerOnce({ config: h.config, log: h.log }, tasks, options);
}

/** A running worker, stopped (drained) when the file's tests end. */
export async function worker(h: Harness, options: WorkerOptions = {}): Promise<WorkerHandle> {
  const handle = await startWorker({ config: h.config, log: h.log }, tasks, options);
  after(() => handle.stop());
  return handle;
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
  last_error: string | null;
  last_status: number | null;
  completed_at: Date | null;
  body: string;
}

export async function deliveryRow(h: Harness, id: string): Promise<DeliveryRow | undefined> {
  const rows = await h.sql<DeliveryRow[]>`select * from app_webhook_deliveries where id = ${id}`;
  return rows[0];
}

export interface AttemptRow {
  attempt: number;
  started_at: Date;
  duration_ms: number;
  status: number | null;
  outcome: string;
  error: string | null;
  excerpt: string | null;
}

export function attemptRows(h: Harness, id: string): Promise<AttemptRow[]> {
  return h.sql<AttemptRow[]>`select * from app_webhook_attempts where delivery_id = ${id} order by attempt`;
}

export interface JobRow {
  id: string;
  key: string | null;
  run_at: Date;
  attempts: number;
  max_attempts: number;
  locked_by: string | null;
  locked_at: Date | null;
  last_error: string | null;
  payload: Record<string, unknown>;
}

/** graphile-worker's jobs of delivery `id` (by key), or every `app/webhook` job. */
export function jobRows(h: Harness, id?: string): Promise<JobRow[]> {
  return id === undefined
    ? h.sql<
        JobRow[]
      >`select j.*, p.payload from graphile_worker.jobs j join graphile_worker._private_jobs p using (id) where j.task_identifier = 'app/webhook' order by j.id`
    : h.sql<
        JobRow[]
      >`select j.*, p.payload from graphile_worker.jobs j join graphile_worker._private_jobs p using (id) where j.key = ${id} order by j.id`;
}

/** Waits until delivery `id` is in one of `statuses`, answering its row. */
export function settled(
  h: Harness,
  id: string,
  statuses: string[] = ['done', 'dead'],
  timeoutMs = 10_000,
): Promise<DeliveryRow> {
  return eventually(
    async () => {
      const row = await deliveryRow(h, id);
      return row !== undefined && statuses.includes(row.status) ? row : undefined;
    },
    timeoutMs,
    `delivery ${id} to be ${statuses.join(' or ')}`,
  );
}

/** An endpoint's slots as the deliveries hold them: `running` hold a slot, `waiting` are parked (migrations/014). */
export async function slotsOf(
  h: Pick<Harness, 'sql'>,
  endpointId: string,
): Promise<{ running: number; waiting: number }> {
  const [row] = await h.sql<{ running: number; waiting: number }[]>`
    select count(*) filter (where slot and status in ('pending', 'running'))::int as running,
           count(*) filter (where parked_at is not null and status = 'pending')::int as waiting
      from app_webhook_deliveries where endpoint_id = ${endpointId}`;
  return row;
}
