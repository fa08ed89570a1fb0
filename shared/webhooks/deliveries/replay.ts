/**
 * Replaying the dead letter queue over a selection: one endpoint's dead deliveries, or those of
 * every enabled endpoint in the actor's reach (of one owner, when named), over a time range. The
 * console's "replay" does this; each endpoint is replayed by {@link recoverDeliveries}, as
 * `webhooks:recover` and `POST /api/v1/webhooks/:id/recover` do for one.
 */
import { authorize, type Actor } from '../../access/actor.ts';
import { listEndpoints } from '../endpoints/list.ts';
import type { WebhookDeps } from '../deps.ts';
import { recoverDeliveries } from './recover.ts';

/** The oldest time a replay reaches when the selection names no start. */
const BEGINNING = new Date(0).toISOString();
/** Rounds of `recoverDeliveries` (MAX_RECOVER each) one replay runs per endpoint before it says more remain. */
const MAX_ROUNDS = 10;

export interface ReplaySelection {
  /** One endpoint; absent: every enabled endpoint in reach (of `owner`, when given). */
  endpoint?: string;
  /** Absent: every owner in reach; null: endpoints without owner. */
  owner?: string | null;
  since?: Date | string;
  until?: Date | string;
}

/**
 * Queues the selection's dead deliveries again; answers how many, and whether more remain (a
 * replay stops after MAX_ROUNDS rounds per endpoint). A role that may not replay is refused first
 * (403 `APP_FORBIDDEN`), whether or not anything matches; then what `recoverDeliveries` throws.
 */
export async function replayDeadDeliveries(
  deps: Pick<WebhookDeps, 'sql' | 'config' | 'log'>,
  actor: Actor,
  selection: ReplaySelection,
): Promise<{ recovered: number; more: boolean }> {
  authorize(actor, 'endpoints.recover');
  const endpoints = selection.endpoint
    ? [selection.endpoint]
    : (await listEndpoints(deps, actor.scope, { owner: selection.owner, enabled: true })).records.map(
        (endpoint) => endpoint.id,
      );
  const range = { since: selection.since ?? BEGINNING, until: selection.until };
  let recovered = 0;
  let more = false;
  for (const endpoint of endpoints) {
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const result = await recoverDeliveries(deps, actor, endpoint, range);
      recovered += result.recovered;
      if (result.more && round === MAX_ROUNDS - 1) more = true;
      if (!result.more || result.recovered === 0) break;
    }
  }
  return { recovered, more };
}
