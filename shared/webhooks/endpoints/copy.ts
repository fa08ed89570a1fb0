/**
 * Copying the endpoints of one store into the endpoint store (`webhooks.store`), for a deployment
 * that moves its endpoint table (the service's PostgreSQL to MySQL, MySQL to a disk, …). Choosing
 * the store is configuration alone, but the endpoints registered so far stay where they were
 * written: without a copy, the new store starts empty and every endpoint seems gone (emits reach
 * no one, their pages answer 404) while their deliveries are still listed.
 *
 * Records are copied as they are stored: the same id (so deliveries and gate rows keep their
 * endpoint), version, dates, and sealed secrets and header values (sealed under `APP_SECRET`,
 * not under the store, so they open the same in any store).
 */
import type { WebhookDeps } from '../deps.ts';
import type { EndpointStore, StoredEndpoint } from '../endpoint-stores/types.ts';
import { endpointStoreOf, notifyEndpointsChanged, syncGate } from './store.ts';

/** Records read from the source per call. */
const COPY_PAGE = 500;

export interface CopyResult {
  /** The store copied from and the one copied into (`webhooks.store`). */
  from: string;
  to: string;
  /** Endpoints the source holds. */
  total: number;
  /** Added to the endpoint store (it did not hold them). */
  copied: number;
  /** Held at an earlier version (changed in the source since an earlier copy): replaced. */
  updated: number;
  /** Held already at the same or a later version: left as they are. */
  unchanged: number;
  dryRun: boolean;
}

/**
 * Copies every endpoint of `from` into the endpoint store of `deps`: those it does not hold are
 * inserted, those it holds at an earlier version replaced, the others left (so running it again
 * after the switch picks up what changed in between, and nothing twice). Each written endpoint's
 * gate row follows the record, and every process's endpoint cache is told.
 */
export async function copyEndpoints(
  deps: WebhookDeps,
  from: EndpointStore,
  options: { dryRun?: boolean } = {},
): Promise<CopyResult> {
  const to = endpointStoreOf(deps);
  const result: CopyResult = {
    from: from.name,
    to: to.name,
    total: 0,
    copied: 0,
    updated: 0,
    unchanged: 0,
    dryRun: options.dryRun === true,
  };
  const owners: (string | null)[] = [];
  for (let page = 1; ; page++) {
    const { records, pages } = await from.list({ page, perPage: COPY_PAGE });
    const held = new Map((await to.getMany(records.map((record) => record.id))).map((r) => [r.id, r]));
    for (const record of records) {
      result.total += 1;
      const outcome = await copyOne(deps, to, record, held.get(record.id), result.dryRun);
      result[outcome] += 1;
      if (outcome !== 'unchanged') owners.push(record.owner, held.get(record.id)?.owner ?? record.owner);
    }
    if (page >= pages) break;
  }
  if (owners.length > 0 && !result.dryRun) {
    await notifyEndpointsChanged(deps.sql, owners);
    for (const owner of new Set(owners)) deps.cache?.invalidate(owner);
  }
  return result;
}

async function copyOne(
  deps: WebhookDeps,
  to: EndpointStore,
  record: StoredEndpoint,
  held: StoredEndpoint | undefined,
  dryRun: boolean,
): Promise<'copied' | 'updated' | 'unchanged'> {
  if (held !== undefined && held.version >= record.version) return 'unchanged';
  if (dryRun) return held === undefined ? 'copied' : 'updated';
  if (held === undefined) await to.insert(record);
  else if (!(await to.update(record, held.version))) return 'unchanged'; // changed meanwhile: the newer change stays
  await syncGate(deps.sql, record);
  return held === undefined ? 'copied' : 'updated';
}
