/** A retained event (`app_events`: type, owner, payload) as the API presents it, with its delivery counts. */
import { notFound } from '../../errors/app-error.ts';
import type { DeliveryCounts } from '../deliveries/record.ts';
import { clip, describeValue } from '../../errors/describe-value.ts';
import type { TenantScope } from '../../access/tenant-scope.ts';
import type { Fragment } from '../../db/bounded-total.ts';
import type { Sql } from '../../db/connect.ts';
import { keptByTenant } from '../deliveries/tenant-reach.ts';

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
  /** Endpoints subscribed to its type that their filters left out, counted at emit time. */
  filteredOut: number;
}

/** AppError 404 `APP_WEBHOOK_EVENT_NOT_FOUND`. */
export const eventNotFound = (id: unknown) =>
  notFound(`webhook event ${typeof id === 'string' ? clip(id) : describeValue(id)} does not exist`, {
    code: 'APP_WEBHOOK_EVENT_NOT_FOUND',
    data: { id },
  });

export interface EventRow {
  id: string;
  type: string;
  owner: string | null;
  payload: unknown;
  created_at: Date;
  filtered_out: number;
  pending: number;
  running: number;
  done: number;
  dead: number;
}

export const toEvent = (row: EventRow): EventRecord => ({
  id: row.id,
  type: row.type,
  owner: row.owner,
  data: row.payload,
  createdAt: row.created_at,
  deliveries: {
    pending: row.pending,
    running: row.running,
    done: row.done,
    dead: row.dead,
    total: row.pending + row.running + row.done + row.dead,
  },
  filteredOut: row.filtered_out,
});

/** The columns of an event with its delivery counts by state (from eventsWithCountsFrom). */
export const EVENT_COLUMNS = `e.id, e.type, e.owner, e.payload, e.created_at, e.filtered_out,
         c.pending::int, c.running::int, c.done::int, c.dead::int`;

/**
 * Events and their delivery counts by state (one aggregate per event, through the event_id
 * index); alias `e`, a `where` may follow. `events` is the table, or a page of it already cut
 * (a subquery), so that the counts are taken for the page's events alone. A tenant's counts are of the deliveries it reaches
 * (tenant-reach.ts), exactly those its delivery listing of the event shows: not those to an
 * endpoint since moved to another tenant. An operator's are of every delivery.
 */
export function eventsWithCountsFrom(sql: Sql, scope: TenantScope, events: Fragment = sql`app_events`): Fragment {
  const reach = scope.kind === 'all' ? sql`` : sql`and ${keptByTenant(sql, scope.owner)}`;
  return sql`
    from ${events} e
    cross join lateral (
      select count(*) filter (where d.status = 'pending') as pending,
             count(*) filter (where d.status = 'running') as running,
             count(*) filter (where d.status = 'done') as done,
             count(*) filter (where d.status = 'dead') as dead
        from app_webhook_deliveries d where d.event_id = e.id ${reach}
    ) c`;
}
