/**
 * Events seen through a tenant scope (issue 6): emit for the scope's owner, and the retained
 * events (`app_events`: type, owner, payload) listed and shown with their delivery counts.
 */
import { isIdText } from './ids.ts';
import { notFound } from '../errors/app-error.ts';
import { assertOwner } from './endpoint-fields.ts';
import { emit } from './emit.ts';
import type { Delivery } from './enqueue.ts';
import type { DeliveryCounts } from './read.ts';
import type { WebhookDeps } from './deps.ts';
import { listInvalid } from './endpoints.ts';
import { validateEventName } from './patterns.ts';
import { assertInScope, ownerFilter, ownerForWrite, type TenantScope } from './tenant-scope.ts';
import type { TimeRange } from './time-range.ts';

/** An emitted event as the API presents it. */
export interface EventRecord {
  /** `evt_…` */
  id: string;
  type: string;
  owner: string | null;
  /** The payload given to emit (the envelope's `data`). */
  data: unknown;
  createdAt: Date;
  /** Its deliveries by state. */
  deliveries: DeliveryCounts;
}

/** What an emit wrote: the event (null when no endpoint matched: nothing is written then) and its deliveries. */
export interface EmitResult {
  event: { id: string; type: string; owner: string | null; createdAt: Date } | null;
  /** The event type and the owner it was emitted as (also when nothing matched). */
  type: string;
  owner: string | null;
  deliveries: Delivery[];
}

export interface EventPageQuery extends TimeRange {
  /** Only this owner's events (null: those without owner); a member's scope fixes it. */
  owner?: string | null;
  /** Only events of this exact type. */
  type?: string;
  page: number;
  perPage: number;
}

/** AppError 404 `APP_WEBHOOK_EVENT_NOT_FOUND`. */
export const eventNotFound = (id: unknown) =>
  notFound(`webhook event ${typeof id === 'string' ? id : JSON.stringify(id)} does not exist`, { code: 'APP_WEBHOOK_EVENT_NOT_FOUND', data: { id } });

interface EventRow {
  id: string;
  type: string;
  owner: string | null;
  payload: unknown;
  created_at: Date;
  pending: number;
  running: number;
  done: number;
  dead: number;
}

const toEvent = (row: EventRow): EventRecord => ({
  id: row.id,
  type: row.type,
  owner: row.owner,
  data: row.payload,
  createdAt: row.created_at,
  deliveries: { pending: row.pending, running: row.running, done: row.done, dead: row.dead, total: row.pending + row.running + row.done + row.dead },
});

/**
 * `emit(type, data, {owner})` for the scope: a member emits only as its owner (naming another
 * is 404 `APP_TENANT_NOT_FOUND`); an admin names any owner, or none.
 */
export async function emitEvent(deps: WebhookDeps, scope: TenantScope, input: { type?: unknown; data?: unknown; owner?: unknown }): Promise<EmitResult> {
  const owner = ownerForWrite(scope, input.owner) as string | null | undefined;
  const deliveries = await emit(deps, input.type as string, input.data === undefined ? {} : input.data, { owner });
  const first = deliveries[0];
  return {
    event: first === undefined ? null : { id: first.eventId, type: first.event, owner: first.owner, createdAt: first.createdAt },
    type: input.type as string,
    owner: owner ?? null,
    deliveries,
  };
}

/** Events with their delivery counts by state (one aggregate per event, through the event_id index). */
const EVENTS_WITH_COUNTS = `
  select e.id, e.type, e.owner, e.payload, e.created_at,
         c.pending::int, c.running::int, c.done::int, c.dead::int
    from app_events e
    cross join lateral (
      select count(*) filter (where d.status = 'pending') as pending,
             count(*) filter (where d.status = 'running') as running,
             count(*) filter (where d.status = 'done') as done,
             count(*) filter (where d.status = 'dead') as dead
        from app_webhook_deliveries d where d.event_id = e.id
    ) c`;

/** One page of events, newest first, with the total; filtered by owner, exact type and time (`since` inclusive, `until` exclusive). */
export async function listEventPage(deps: Pick<WebhookDeps, 'sql'>, scope: TenantScope, query: EventPageQuery): Promise<{ records: EventRecord[]; total: number }> {
  const { sql } = deps;
  const owner = ownerFilter(scope, query.owner === undefined ? undefined : assertOwner(query.owner));
  if (query.type !== undefined) {
    const reason = validateEventName(query.type);
    if (reason !== null) throw listInvalid('type', `event name ${reason}`, query.type);
  }
  const where = sql`
    ${owner === undefined ? sql`true` : owner === null ? sql`e.owner is null` : sql`e.owner = ${owner}`}
    and ${query.type === undefined ? sql`true` : sql`e.type = ${query.type}`}
    and ${query.since === undefined ? sql`true` : sql`e.created_at >= ${query.since}`}
    and ${query.until === undefined ? sql`true` : sql`e.created_at < ${query.until}`}`;
  const [rows, [{ total }]] = await Promise.all([
    sql<EventRow[]>`
      ${sql.unsafe(EVENTS_WITH_COUNTS)} where ${where}
       order by e.created_at desc, e.id desc limit ${query.perPage} offset ${(query.page - 1) * query.perPage}`,
    sql<{ total: number }[]>`select count(*)::int as total from app_events e where ${where}`,
  ]);
  return { records: rows.map(toEvent), total };
}

/** Event `id` with its payload and delivery counts. Throws 404 `APP_WEBHOOK_EVENT_NOT_FOUND` (also for another tenant's event). */
export async function showEvent(deps: Pick<WebhookDeps, 'sql'>, scope: TenantScope, id: string): Promise<EventRecord> {
  const { sql } = deps;
  if (!isIdText(id)) throw eventNotFound(id);
  const rows = await sql<EventRow[]>`
    ${sql.unsafe(EVENTS_WITH_COUNTS)} where e.id = ${id}`;
  if (rows.length === 0) throw eventNotFound(id);
  assertInScope(scope, rows[0].owner, () => eventNotFound(id));
  return toEvent(rows[0]);
}
