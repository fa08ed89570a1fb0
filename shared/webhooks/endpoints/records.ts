/**
 * What a worker needs of an endpoint to send a delivery (url, headers, secrets, signing), kept in
 * the process by endpoint id. A claim answers the version of each endpoint's record off its gate
 * row (migrations/025), and an entry is used only while it holds that version: a change made
 * through the service, by any process, is seen by the next claim with no notice to wait for, and
 * an endpoint whose record has not changed costs its store nothing. An entry is also read again
 * after `ttlMs` (10 s), so a change made to the store by other software (which no gate row
 * follows) reaches the deliveries within that time. An entry past that time is of no more use, so
 * it is dropped at the next load: the process holds only the endpoints it delivered to in the last
 * `ttlMs` (at most `maxEntries`), and a removed endpoint's record, sealed secrets included, does
 * not stay in memory until 10,000 others have pushed it out.
 */
import type { EndpointStore, StoredEndpoint } from '../endpoint-stores/types.ts';

export interface EndpointRecords {
  /** The records of these endpoints at (at least) these versions; an endpoint gone from the store is left out. */
  load(wanted: ReadonlyArray<{ id: string; version: number }>): Promise<Map<string, StoredEndpoint>>;
  /** How many endpoints' records the process holds now. */
  readonly size: number;
}

/** Most endpoints kept at once (the least recently loaded go first). */
const MAX_ENTRIES = 10_000;
/** How long an entry is used at most, whatever its version. */
export const RECORD_TTL_MS = 10_000;

export function endpointRecords(
  store: EndpointStore,
  options: { maxEntries?: number; ttlMs?: number; now?: () => number } = {},
): EndpointRecords {
  const maxEntries = options.maxEntries ?? MAX_ENTRIES;
  const ttlMs = options.ttlMs ?? RECORD_TTL_MS;
  const now = options.now ?? Date.now;
  const kept = new Map<string, { record: StoredEndpoint; loadedAt: number }>();
  return {
    get size() {
      return kept.size;
    },
    async load(wanted) {
      const found = new Map<string, StoredEndpoint>();
      const missing = new Set<string>();
      const time = now();
      // entries are in the order they were loaded: the expired ones are at the front
      for (const [id, entry] of kept) {
        if (time - entry.loadedAt < ttlMs) break;
        kept.delete(id);
      }
      for (const { id, version } of wanted) {
        const entry = kept.get(id);
        if (entry !== undefined && entry.record.version >= version && time - entry.loadedAt < ttlMs)
          found.set(id, entry.record);
        else missing.add(id);
      }
      if (missing.size > 0) {
        for (const record of await store.getMany([...missing])) {
          found.set(record.id, record);
          kept.delete(record.id);
          kept.set(record.id, { record, loadedAt: time });
        }
        for (const id of missing) if (!found.has(id)) kept.delete(id);
        while (kept.size > maxEntries) kept.delete(kept.keys().next().value as string);
      }
      return found;
    },
  };
}
