/**
 * Batch loading per request (the DataLoader pattern, in a few lines): every `load(key)` made
 * while GraphQL resolves one level of a result (the same turn of the event loop) is gathered
 * and answered by ONE call of the batch function, so a list of 100 deliveries with their
 * endpoints reads the endpoints with one statement, not 100. Answers are kept for the rest of
 * the request (a key is read once per request); loaders never outlive their request, so
 * nothing is cached across callers or tenants.
 */

/** Answers many keys at once: key -> value; a key left out of the map has no value (null). */
export type BatchFunction<K, V> = (keys: readonly K[]) => Promise<ReadonlyMap<K, V>>;

export interface Loader<K, V> {
  /** The value of `key` (undefined when the batch answered nothing for it). */
  load(key: K): Promise<V | undefined>;
  /** Values of many keys, in order. */
  loadMany(keys: readonly K[]): Promise<Array<V | undefined>>;
}

/**
 * A loader over `batch`. Keys are gathered until the current turn's promise jobs have run
 * (`setImmediate`), then sent in one call; a failing batch rejects every load of that batch.
 */
export function createLoader<K, V>(batch: BatchFunction<K, V>): Loader<K, V> {
  const answers = new Map<K, Promise<V | undefined>>();
  let pending: Array<{ key: K; resolve: (value: V | undefined) => void; reject: (error: unknown) => void }> = [];

  const dispatch = async () => {
    const waiting = pending;
    pending = [];
    try {
      const found = await batch(waiting.map((entry) => entry.key));
      for (const entry of waiting) entry.resolve(found.get(entry.key));
    } catch (error) {
      for (const entry of waiting) {
        answers.delete(entry.key); // a later request in this operation may try again
        entry.reject(error);
      }
    }
  };

  const load = (key: K): Promise<V | undefined> => {
    const known = answers.get(key);
    if (known) return known;
    const answer = new Promise<V | undefined>((resolve, reject) => {
      if (pending.length === 0) setImmediate(() => void dispatch());
      pending.push({ key, resolve, reject });
    });
    answers.set(key, answer);
    return answer;
  };

  return { load, loadMany: (keys) => Promise.all(keys.map(load)) };
}

/** The loaders of one request, by name; each is made at its first use. */
export interface Loaders {
  /** The loader named `name`, made with `batch` the first time it is asked for in this request. */
  get<K, V>(name: string, batch: BatchFunction<K, V>): Loader<K, V>;
}

export function createLoaders(): Loaders {
  const made = new Map<string, Loader<unknown, unknown>>();
  return {
    get<K, V>(name: string, batch: BatchFunction<K, V>): Loader<K, V> {
      let loader = made.get(name);
      if (!loader) {
        loader = createLoader(batch as BatchFunction<unknown, unknown>);
        made.set(name, loader);
      }
      return loader as Loader<K, V>;
    },
  };
}
