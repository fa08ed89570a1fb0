/** One delivery in full: its endpoint and every attempt. */
import { isIdText } from '../ids.ts';
import { endpointStoreOf } from '../endpoints/store.ts';
import { maskUrl } from '../destinations/credentials.ts';
import { inScope } from '../../access/tenant-scope.ts';
import { authorize, type Actor } from '../../access/actor.ts';
import type { WebhookDeps } from '../deps.ts';
import {
  SUMMARY_COLUMNS,
  deliveryNotFound,
  summary,
  type AttemptDetails,
  type DeliveryDetails,
  type DeliveryReader,
  type DeliveryRow,
} from './record.ts';
import { transaction } from '../../db/transaction.ts';

type DetailsRow = DeliveryRow & { endpoint_owner: string | null };

/**
 * Delivery `id` with its endpoint and every attempt (`jobs show <id>`), in the actor's scope
 * (as {@link deliveryInScope}). Throws 403 `APP_FORBIDDEN` first to a grant that may not read
 * webhooks.
 */
export async function showDelivery(
  deps: Pick<WebhookDeps, 'sql' | 'config' | 'endpoints'>,
  actor: Actor,
  id: string,
): Promise<DeliveryDetails> {
  authorize(actor, 'webhooks.read');
  return deliveryInScope(deps, actor, id);
}

/**
 * Delivery `id` with its endpoint and every attempt, as `reader` may see it, for the core's own
 * operations once they have authorized their actor. It is in a member's scope when its event is the member's owner's and
 * its endpoint still belongs to that owner; anything else is a 404
 * `APP_WEBHOOK_DELIVERY_NOT_FOUND`, like a delivery that does not exist.
 */
export async function deliveryInScope(
  deps: Pick<WebhookDeps, 'sql' | 'config' | 'endpoints'>,
  reader: DeliveryReader,
  id: string,
): Promise<DeliveryDetails> {
  const { sql } = deps;
  const { scope } = reader;
  if (!isIdText(id)) throw deliveryNotFound(id);
  // One snapshot for both reads: an outcome recorded between them would otherwise show a
  // finished delivery without its last attempt.
  const [rows, attempts] = await transaction(
    sql,
    async (tx) => [
      await tx<DetailsRow[]>`
      select ${tx.unsafe(SUMMARY_COLUMNS)}, g.owner as endpoint_owner
        from app_webhook_deliveries d join app_endpoint_gate g on g.endpoint_id = d.endpoint_id
       where d.id = ${id}`,
      await tx<
        {
          attempt: number;
          started_at: Date;
          duration_ms: number;
          status: number | null;
          outcome: AttemptDetails['outcome'];
          error: string | null;
          excerpt: string | null;
        }[]
      >`
      select attempt, started_at, duration_ms, status, outcome, error, excerpt
        from app_webhook_attempts where delivery_id = ${id} order by attempt`,
    ],
    'isolation level repeatable read read only',
  );
  const row = rows[0];
  if (row === undefined || !inScope(scope, row.owner) || !inScope(scope, row.endpoint_owner))
    throw deliveryNotFound(id);
  const endpoint = await endpointStoreOf(deps).get(row.endpoint_id);
  if (endpoint === null) throw deliveryNotFound(id); // its endpoint is being removed, and the delivery with it
  return {
    ...summary(row, reader),
    endpoint: {
      id: row.endpoint_id,
      url: maskUrl(endpoint.url),
      enabled: endpoint.disabledAt === null,
      disabledAt: endpoint.disabledAt,
      disabledReason: endpoint.disabledReason,
    },
    attemptsMade: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      startedAt: attempt.started_at,
      durationMs: attempt.duration_ms,
      status: attempt.status,
      outcome: attempt.outcome,
      error: attempt.error,
      excerpt: attempt.excerpt,
    })),
  };
}
