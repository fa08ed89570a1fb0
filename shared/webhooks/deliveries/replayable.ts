/**
 * Which dead deliveries a replay queues again: the one rule of `recoverDeliveries` (one
 * endpoint), `replayDeadDeliveries` (a selection of several) and `previewReplay` (what the
 * console's confirmation counts), so a count shown before a replay is what the replay does.
 *
 * A delivery is taken when it is dead, its endpoint is enabled (a disabled endpoint is sent
 * nothing: its dead deliveries stay dead until it is enabled), it is of the endpoint's current
 * owner (an endpoint given to another tenant never receives the previous tenant's events) and it
 * was created in [since, until). The endpoint's state and owner are read off its gate row
 * (migrations/025), whatever store holds the endpoint.
 */
import type { Sql } from '../../db/connect.ts';
import type { Fragment } from '../../db/bounded-total.ts';

/** The condition on deliveries `d` that a replay over [since, until) takes them. */
export const replayable = (sql: Sql, range: { since: Date; until?: Date }): Fragment => sql`
  d.status = 'dead'
  and exists (
    select 1 from app_endpoint_gate g
     where g.endpoint_id = d.endpoint_id and g.disabled_at is null and g.owner is not distinct from d.owner)
  and d.created_at >= ${range.since}
  and ${range.until === undefined ? sql`true` : sql`d.created_at < ${range.until}`}`;

/** The condition on deliveries `d` that their endpoint is disabled (a replay leaves them dead). */
export const toDisabledEndpoint = (sql: Sql): Fragment => sql`
  exists (select 1 from app_endpoint_gate g where g.endpoint_id = d.endpoint_id and g.disabled_at is not null)`;
