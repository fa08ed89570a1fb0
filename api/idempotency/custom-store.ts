/**
 * A custom idempotency store (`api.idempotency.store`, in place of the shared backend): a module
 * exporting `get`, `set` and `delete`, or a factory `(app, {name}) => store` (as its default export
 * or `createStore`). `set(key, value, ttlMs)`; `get` answers undefined or null when absent.
 *
 * One execution per key across processes needs an atomic "store if absent": a store that has
 * `add(key, value, ttlMs) => boolean` gets it; without `add`, claims are serialised per key in
 * this process only (the boot says so).
 */
import type { Config } from '../../shared/config/index.ts';
import type { Logger } from '../../shared/log/logger.ts';
import { importStoreModule } from '../../shared/stores/custom-module.ts';
import { withTimeout } from '../../shared/stores/timeout.ts';
import type { Json, KeyValueStore } from '../../shared/stores/types.ts';

export interface CustomStore {
  get(key: string): Promise<unknown> | unknown;
  set(key: string, value: unknown, ttlMs: number): Promise<unknown> | unknown;
  delete(key: string): Promise<unknown> | unknown;
  add?(key: string, value: unknown, ttlMs: number): Promise<boolean> | boolean;
}

export type StoreFactory = (
  app: { config: Config; log: Logger },
  options: { name: string },
) => CustomStore | Promise<CustomStore>;

const isStore = (value: unknown): value is CustomStore =>
  !!value && ['get', 'set', 'delete'].every((name) => typeof (value as Record<string, unknown>)[name] === 'function');

/** Turns what a module exports into a store. */
export async function storeFrom(
  exported: unknown,
  app: { config: Config; log: Logger },
  name: string,
): Promise<CustomStore> {
  const factory =
    typeof exported === 'function' ? exported : (exported as { createStore?: unknown } | undefined)?.createStore;
  const store = typeof factory === 'function' ? await (factory as StoreFactory)(app, { name }) : exported;
  if (!isStore(store))
    throw new Error(`the ${name} store module must export get, set and delete, or a factory (app, {name}) => store`);
  return store;
}

/** A {@link KeyValueStore} over a custom store; every call gives up after `timeoutMs`. */
export function keyValueFrom(store: CustomStore, options: { timeoutMs: number }): KeyValueStore & { atomic: boolean } {
  const timed = <T>(value: Promise<T> | T, what: string) =>
    withTimeout(Promise.resolve(value), options.timeoutMs, `custom store ${what}`);
  const tails = new Map<string, Promise<unknown>>();
  /** Runs `task` after the previous task on `key` in this process. */
  const serialised = <T>(key: string, task: () => Promise<T>): Promise<T> => {
    const run = (tails.get(key) ?? Promise.resolve()).catch(() => undefined).then(task);
    const tail = run.finally(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    tails.set(key, tail);
    return run;
  };
  const get = async (key: string) => {
    const value = await timed(store.get(key), 'get');
    return value === null || value === undefined ? undefined : (value as Json);
  };
  const set = async (key: string, value: Json, ttlMs: number) => {
    await timed(store.set(key, value, ttlMs), 'set');
  };
  return {
    atomic: typeof store.add === 'function',
    get,
    set,
    add: store.add
      ? async (key, value, ttlMs) =>
          Boolean(await timed((store.add as NonNullable<CustomStore['add']>)(key, value, ttlMs), 'add'))
      : (key, value, ttlMs) =>
          serialised(key, async () => {
            if ((await get(key)) !== undefined) return false;
            await set(key, value, ttlMs);
            return true;
          }),
    async delete(key) {
      await timed(store.delete(key), 'delete');
    },
  };
}

/** Loads `api.idempotency.store`. */
export async function loadIdempotencyStore(
  app: { config: Config; log: Logger },
  specifier: string,
): Promise<KeyValueStore & { atomic: boolean }> {
  const store = await storeFrom(await importStoreModule(specifier), app, 'idempotency');
  const entries = keyValueFrom(store, { timeoutMs: app.config.shared.timeout });
  if (!entries.atomic)
    app.log.warn(
      `idempotency store ${specifier} has no add(): one execution per key is certain within each process only`,
    );
  return entries;
}
