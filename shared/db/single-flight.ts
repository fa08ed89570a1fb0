import { outsideRequest } from './request-statements.ts';

/**
 * One read at a time per key for the per-process caches (the token cache, the endpoint cache):
 * callers that ask for a key while its read is under way share that read's promise instead of
 * sending the same statement again. `loading` holds the reads under way; each leaves it once
 * settled (unless the cache dropped or replaced it meanwhile). The read belongs to no request
 * (`outsideRequest`): the timeout of the request that started it does not cancel it under the
 * others sharing it.
 */
export function singleFlight<K, V>(loading: Map<K, Promise<V>>, key: K, load: () => Promise<V>): Promise<V> {
  const pending = loading.get(key);
  if (pending !== undefined) return pending;
  const promise = outsideRequest(load);
  loading.set(key, promise);
  const clear = () => {
    if (loading.get(key) === promise) loading.delete(key);
  };
  promise.then(clear, clear);
  return promise;
}
