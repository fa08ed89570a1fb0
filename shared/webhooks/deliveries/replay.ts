/**
 * Replaying the dead letter queue over a selection: one endpoint's dead deliveries, or those of
 * every endpoint in the actor's reach (of one owner, when named), over a time range. The
 * console's "replay" does this; each endpoint is replayed by {@link recoverDeliveries}, as
 * `webhooks:recover` and `POST /api/v1/webhooks/:id/recover` do for one. Which deliveries it
 * takes is the rule of replayable.ts; {@link previewReplay} counts them by the same rule before.
 */
import { authorize, type Actor } from '../../access/actor.ts';
import { requestOverdue } from '../../db/commit-deadline.ts';
import { ownerFilter } from '../../access/tenant-scope.ts';
import type { Fragment } from '../../db/bounded-total.ts';
import { assertOwnerFilter } from '../endpoints/fields.ts';
import { isIdText } from '../ids.ts';
import { listInvalid } from '../list-filters.ts';
import { parseTimeRange } from '../time-range.ts';
import type { WebhookDeps } from '../deps.ts';
import { recoverDeliveries } from './recover.ts';
import { replayable, toDisabledEndpoint } from './replayable.ts';
import { keptByTenant } from './tenant-reach.ts';

/** The oldest time a replay reaches when the selection names no start. */
const BEGINNING = new Date(0);
/** Rounds of `recoverDeliveries` (MAX_RECOVER each) one replay runs per endpoint before it says more remain. */
const MAX_ROUNDS = 10;

export interface ReplaySelection {
  /** One endpoint; absent: every endpoint in reach (of `owner`, when given). */
  endpoint?: string;
  /** Absent: every owner in reach; null: endpoints without owner. */
  owner?: string | null;
  since?: Date | string;
  until?: Date | string;
}

/** What a replay of a selection would do: the dead deliveries it queues again, and those it leaves dead. */
export interface ReplayPreview {
  /** The selection's dead deliveries, as the dead-letter listing counts them. */
  dead: number;
  /** Those the replay queues again (replayable.ts). */
  replayable: number;
  /** Left dead because their endpoint is disabled. */
  disabledEndpoint: number;
  /** Left dead because their endpoint now belongs to another tenant. */
  otherOwner: number;
}

type Deps = Pick<WebhookDeps, 'sql' | 'config' | 'log' | 'endpoints'>;

/**
 * The selection's dead deliveries `d` in the actor's reach (the dead-letter listing's filters:
 * endpoint, the delivery's owner, creation time), and its time range with its start filled in.
 * Throws 422 `APP_WEBHOOK_LIST_INVALID` (a malformed endpoint id or owner), 422
 * `APP_WEBHOOK_TIME_RANGE_INVALID`, 404 `APP_TENANT_NOT_FOUND` (a member naming another owner).
 */
function selected(deps: Deps, actor: Actor, selection: ReplaySelection) {
  const { sql } = deps;
  if (selection.endpoint !== undefined && !isIdText(selection.endpoint))
    throw listInvalid('endpoint', 'is not an id (1 to 100 printable ASCII characters)', selection.endpoint);
  const owner = ownerFilter(
    actor.scope,
    selection.owner === undefined ? undefined : assertOwnerFilter(selection.owner),
  );
  const range = parseTimeRange({ since: selection.since, until: selection.until });
  const since = range.since === undefined ? BEGINNING : new Date(range.since);
  const until = range.until === undefined ? undefined : new Date(range.until);
  const conditions: Fragment[] = [
    sql`d.status = 'dead'`,
    ...(actor.scope.kind === 'tenant' ? [keptByTenant(sql, actor.scope.owner)] : []),
    ...(selection.endpoint === undefined ? [] : [sql`d.endpoint_id = ${selection.endpoint}`]),
    ...(owner === undefined ? [] : [owner === null ? sql`d.owner is null` : sql`d.owner = ${owner}`]),
    sql`d.created_at >= ${since}`,
    ...(until === undefined ? [] : [sql`d.created_at < ${until}`]),
  ];
  return {
    where: conditions.reduce((both, next) => sql`${both} and ${next}`),
    range: { since, until },
  };
}

/**
 * What {@link replayDeadDeliveries} would do with `selection` now, counted by its own rule: a
 * confirmation shows it, so the number it asks about is the number the replay queues. A role
 * that may not replay is refused first (403 `APP_FORBIDDEN`); then the input errors of a
 * selection.
 */
export async function previewReplay(deps: Deps, actor: Actor, selection: ReplaySelection): Promise<ReplayPreview> {
  authorize(actor, 'endpoints.recover');
  const { sql } = deps;
  const { where, range } = selected(deps, actor, selection);
  const [counts] = await sql<{ dead: number; replayable: number; disabled: number }[]>`
    select count(*)::int as dead,
           (count(*) filter (where ${replayable(sql, range)}))::int as replayable,
           (count(*) filter (where ${toDisabledEndpoint(sql)}))::int as disabled
      from app_webhook_deliveries d where ${where}`;
  return {
    dead: counts.dead,
    replayable: counts.replayable,
    disabledEndpoint: counts.disabled,
    otherOwner: counts.dead - counts.replayable - counts.disabled,
  };
}

/**
 * Queues the selection's dead deliveries again; answers how many, and whether more remain (a
 * replay stops after MAX_ROUNDS rounds per endpoint, and, inside a request, at the round after
 * its `requestTimeout` passed: each round commits, so the answer is the real one, given in time).
 * A role that may not replay is refused first (403 `APP_FORBIDDEN`), whether or not anything matches; then the input errors of a selection
 * and what `recoverDeliveries` throws (one endpoint named: 404, or 409 when it is disabled).
 */
export async function replayDeadDeliveries(
  deps: Deps,
  actor: Actor,
  selection: ReplaySelection,
): Promise<{ recovered: number; more: boolean }> {
  authorize(actor, 'endpoints.recover');
  const { sql } = deps;
  const { where, range } = selected(deps, actor, selection);
  // a named endpoint is replayed (or refused) as such; else each endpoint that has a delivery
  // the rule takes
  const endpoints = selection.endpoint
    ? [selection.endpoint]
    : (
        await sql<{ endpoint_id: string }[]>`
          select distinct d.endpoint_id from app_webhook_deliveries d
           where ${where} and ${replayable(sql, range)}
           order by d.endpoint_id`
      ).map((row) => row.endpoint_id);
  let recovered = 0;
  let more = false;
  let rounds = 0;
  for (const endpoint of endpoints) {
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      // past the request's deadline after a round committed: the client waits for this answer,
      // so the replay stops here and says more remain (replaying again goes on from there)
      if (rounds > 0 && requestOverdue()) return { recovered, more: true };
      rounds += 1;
      const result = await recoverDeliveries(deps, actor, endpoint, range);
      recovered += result.recovered;
      if (result.more && round === MAX_ROUNDS - 1) more = true;
      if (!result.more || result.recovered === 0) break;
    }
  }
  return { recovered, more };
}
