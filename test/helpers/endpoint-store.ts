/**
 * An endpoint store made in a test, to test what sits above the adapters (the factory, the guard,
 * health) on their own: it keeps records in a Map and, when told to, fails every call the way an
 * unreachable store does (rejects with the given error, or never settles). It is not a stand-in
 * for any database: the adapters have tests of their own against the real ones.
 */
import type { AdapterName, EndpointStore, StoredEndpoint } from '../../shared/webhooks/endpoint-stores/types.ts';
import type { LoadAdapter } from '../../shared/webhooks/endpoint-stores/open.ts';

/** How the store answers: normally, with this error, or never. */
export type Behaviour = 'answer' | 'hang' | Error;

export interface InTestStore extends EndpointStore {
  /** Changes how every later call answers. */
  behave(behaviour: Behaviour): void;
  /** How many times `close` was called. */
  readonly closed: number;
}

/** The error a store gives an insert whose id is taken (a unique-key violation). */
export function duplicateIdError(id: string): Error {
  return Object.assign(new Error(`Duplicate entry '${id}' for key 'PRIMARY'`), { code: 'ER_DUP_ENTRY', errno: 1062 });
}

/** An Error carrying a Node socket code (`ECONNREFUSED`…), as a driver reports a refused connection. */
export const socketError = (code: string, message = `connect ${code} 127.0.0.1:3306`) =>
  Object.assign(new Error(message), { code, syscall: 'connect' });

export function inTestStore(name: string, adapter: AdapterName, behaviour: Behaviour = 'answer'): InTestStore {
  const records = new Map<string, StoredEndpoint>();
  let current = behaviour;
  let closed = 0;
  const answer = <T>(value: () => T): Promise<T> => {
    if (current === 'hang') return new Promise<T>(() => {});
    if (current instanceof Error) return Promise.reject(current);
    try {
      return Promise.resolve(value());
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return {
    name,
    adapter,
    behave: (next) => {
      current = next;
    },
    get closed() {
      return closed;
    },
    install: () => answer(() => undefined),
    ping: () => answer(() => undefined),
    async close() {
      closed += 1;
    },
    get: (id) => answer(() => records.get(id) ?? null),
    getMany: (ids) =>
      answer(() => ids.map((id) => records.get(id)).filter((record): record is StoredEndpoint => !!record)),
    list: () =>
      answer(() => {
        const all = [...records.values()];
        return { records: all, page: 1, perPage: all.length, total: all.length, pages: all.length ? 1 : 0 };
      }),
    subscribers: (owner) =>
      answer(() =>
        [...records.values()]
          .filter((record) => record.owner === owner && record.disabledAt === null)
          .map(({ id, events, filter }) => ({ id, events, filter })),
      ),
    insert: (endpoint) =>
      answer(() => {
        if (records.has(endpoint.id)) throw duplicateIdError(endpoint.id);
        records.set(endpoint.id, endpoint);
      }),
    update: (endpoint, expectedVersion) =>
      answer(() => {
        if (records.get(endpoint.id)?.version !== expectedVersion) return false;
        records.set(endpoint.id, endpoint);
        return true;
      }),
    delete: (id) => answer(() => records.delete(id)),
  };
}

/**
 * A loader (`openEndpointStores`'s `load`) whose adapters open in-test stores, recording each
 * store it opened by name; `behaviours` says how a store of a given name answers from the start.
 * An adapter named in `real` is loaded from its module instead.
 */
export function inTestLoader(
  behaviours: Record<string, Behaviour> = {},
  real: { adapters: readonly AdapterName[]; load: LoadAdapter } = { adapters: [], load: async () => assertNever() },
) {
  const opened = new Map<string, InTestStore>();
  const loads: AdapterName[] = [];
  const load: LoadAdapter = async (adapter) => {
    loads.push(adapter);
    if (real.adapters.includes(adapter)) return real.load(adapter);
    return {
      openStore: async (context) => {
        const store = inTestStore(context.name, adapter, behaviours[context.name]);
        opened.set(context.name, store);
        return store;
      },
    };
  };
  return { load, opened, loads };
}

function assertNever(): never {
  throw new Error('no real adapter was asked for');
}

/** An endpoint record as the core would store it. */
export function storedEndpoint(id: string, overrides: Partial<StoredEndpoint> = {}): StoredEndpoint {
  const now = new Date('2026-01-02T03:04:05.678Z');
  return {
    id,
    url: 'https://receiver.example/hooks',
    events: ['order.created'],
    filter: null,
    owner: null,
    description: null,
    headers: {},
    secrets: [{ sealed: 'plain:whsec_abc', createdAt: now, expiresAt: null }],
    signing: 'hmac-sha256',
    rateLimit: null,
    ordering: 'none',
    disabledAt: null,
    disabledReason: null,
    enabledAt: null,
    createdAt: now,
    updatedAt: now,
    version: 1,
    ...overrides,
  };
}
