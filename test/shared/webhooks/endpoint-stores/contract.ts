/**
 * The rules every endpoint store keeps (shared/webhooks/endpoint-stores/types.ts), written once
 * and run against each adapter: an adapter's test file calls `describeEndpointStoreContract` with
 * a way to open its store over a table name, and the cases below run against it. Each case opens
 * a store over a table of its own (a fresh name), so it starts from no rows and leaves nothing a
 * later case could inherit; the test file owns the database or directory the tables live in and
 * removes it at the end.
 *
 * The store holds records the core has already checked and sealed, so the cases feed it plain
 * records and ask only what the interface promises: every field back unchanged, the version
 * guard of `update`, the filters, order and paging of `list`, the exact owner of `subscribers`,
 * and no lost update when two processes change one endpoint at once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type {
  EndpointStore,
  StoreContext,
  StoredEndpoint,
  StoredEndpointPage,
  SubscriberEndpoint,
} from '../../../../shared/webhooks/endpoint-stores/types.ts';
import { ROOT } from '../../../helpers/processes.ts';

/** How a child process opens the store a case uses (see concurrent-updater.ts). */
export interface ChildStore {
  context: StoreContext;
  /**
   * The module (a path from the repository's root) whose `openStore(context)` opens it; default
   * `shared/webhooks/endpoint-stores/<adapter>.ts`. An adapter whose `openStore` needs more than
   * the context names a module of its own that supplies the rest.
   */
  module?: string;
}

export interface ContractOptions {
  /** The store over `table` in the child processes of the cross-process case. */
  child(table: string): ChildStore;
  /**
   * Makes the installed `table` what it was before subscription filters (no `filter` column or
   * field), with its rows; absent: that case is not run for this adapter.
   */
  withoutFilters?(table: string): Promise<void>;
}

/** What the child script is given (as JSON, its only argument). */
export interface UpdaterArguments extends ChildStore {
  /** The endpoint whose `description` holds the counter. */
  id: string;
  /** How many increments to commit. */
  increments: number;
}

/** A time in the future, away from any clock edge, with milliseconds that are not zero. */
const BASE = Date.parse('2031-03-04T05:06:07.089Z');
let sequence = 0;

/** A new record (version 1) with every optional field empty unless `fields` sets it; ids and times grow. */
export function makeEndpoint(fields: Partial<StoredEndpoint> = {}): StoredEndpoint {
  sequence += 1;
  const createdAt = new Date(BASE + sequence * 1_001);
  return {
    id: `ep_contract_${String(sequence).padStart(6, '0')}`,
    url: `https://receiver.example/hooks/${sequence}`,
    events: ['order.created'],
    filter: null,
    owner: null,
    description: null,
    headers: {},
    secrets: [{ sealed: `plain:whsec_${sequence}`, createdAt, expiresAt: null }],
    signing: 'hmac-sha256',
    rateLimit: null,
    ordering: 'none',
    disabledAt: null,
    disabledReason: null,
    enabledAt: null,
    createdAt,
    updatedAt: createdAt,
    version: 1,
    ...fields,
  };
}

/** The record `update` is given after a change: `changes` laid over, the next version, a later updatedAt. */
function changed(record: StoredEndpoint, changes: Partial<StoredEndpoint>): StoredEndpoint {
  return {
    ...record,
    ...changes,
    version: record.version + 1,
    updatedAt: new Date(record.updatedAt.getTime() + 7),
  };
}

const idsOf = (page: StoredEndpointPage): string[] => page.records.map((record) => record.id);
const byId = (records: StoredEndpoint[]): StoredEndpoint[] =>
  [...records].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** A table name no other case (or earlier run) uses: letters, digits and underscores, short enough for any SQL. */
function freshTable(): string {
  return `endpoints_${randomBytes(6).toString('hex')}`;
}

export function describeEndpointStoreContract(
  label: string,
  open: (table: string) => Promise<EndpointStore>,
  options: ContractOptions,
): void {
  describe(`endpoint store contract: ${label}`, () => {
    let table: string;
    let store: EndpointStore;
    /** Stores a case opened besides `store`, closed after it. */
    const extra: EndpointStore[] = [];

    beforeEach(async () => {
      table = freshTable();
      store = await open(table);
      await store.install();
      const start = await store.list({});
      assert.equal(start.total, 0, 'every case starts from a store with no rows');
    });

    afterEach(async () => {
      for (const other of extra.splice(0)) await other.close();
      await store.close();
    });

    async function openAnother(): Promise<EndpointStore> {
      const other = await open(table);
      extra.push(other);
      return other;
    }

    /**
     * `subscribers(owner)` as plain `{ id, events, filter }` entries, in the order answered: it
     * promises each endpoint's id, events and filter, by id; not the class of the array a driver
     * hands back (the postgres driver's result is an Array subclass), nor that no other field
     * rides along.
     */
    async function subscribersOf(owner: string | null): Promise<SubscriberEndpoint[]> {
      return [...(await store.subscribers(owner))].map(({ id, events, filter }) => ({
        id,
        events: [...events],
        filter,
      }));
    }

    async function seed(...records: StoredEndpoint[]): Promise<StoredEndpoint[]> {
      for (const record of records) await store.insert(record);
      return records;
    }

    describe('install and ping', () => {
      it('install is idempotent: installing again keeps the rows and the store serves', async () => {
        const [a] = await seed(makeEndpoint());
        await store.install();
        await store.install();
        assert.deepEqual(await store.get(a.id), a);
        await store.ping();
      });

      it('install from two store instances at once succeeds on both, on a table that did not exist', async () => {
        table = freshTable();
        const first = await openAnother();
        const second = await openAnother();
        await Promise.all([first.install(), second.install()]);
        const record = makeEndpoint();
        await first.insert(record);
        assert.deepEqual(await second.get(record.id), record);
        await Promise.all([first.install(), second.install()]);
        assert.deepEqual(await first.get(record.id), record);
      });

      it('ping answers on an installed store; name and adapter are set', async () => {
        await store.ping();
        assert.equal(typeof store.name, 'string');
        assert.ok(store.name.length > 0);
        assert.equal(typeof store.adapter, 'string');
      });
    });

    describe('insert and get', () => {
      it('get answers every field as inserted: dates to the millisecond, nulls, headers, secrets', async () => {
        const bare = makeEndpoint();
        const full = makeEndpoint({
          url: 'https://receiver.example/a/b?c=d&e=f#g',
          events: ['order.*', 'invoice.paid', '*'],
          owner: 'tenant-1',
          description: 'Orders to the warehouse',
          headers: { 'X-Api-Key': 'enc:v1:k1:abc', authorization: 'enc:v1:k1:def', 'x-empty': '' },
          secrets: [
            {
              sealed: 'enc:v1:k1:old',
              createdAt: new Date('2030-01-01T00:00:00.001Z'),
              expiresAt: new Date('2031-12-31T23:59:59.999Z'),
            },
            { sealed: 'enc:v1:k1:new', createdAt: new Date('2030-06-15T12:30:45.500Z'), expiresAt: null },
          ],
          signing: 'ed25519',
          rateLimit: 25,
          ordering: 'fifo',
          disabledAt: new Date('2031-05-06T07:08:09.010Z'),
          disabledReason: 'failing since 2031-05-01',
          enabledAt: new Date('2031-04-01T00:00:00.999Z'),
          createdAt: new Date('2029-02-03T04:05:06.007Z'),
          updatedAt: new Date('2031-05-06T07:08:09.011Z'),
        });
        await seed(bare, full);
        const gotBare = await store.get(bare.id);
        const gotFull = await store.get(full.id);
        assert.deepEqual(gotBare, bare);
        assert.deepEqual(gotFull, full);
        assert.ok(gotFull!.createdAt instanceof Date && gotFull!.secrets[0].expiresAt instanceof Date);
        assert.equal(gotFull!.disabledAt!.toISOString(), '2031-05-06T07:08:09.010Z');
        assert.deepEqual(Object.keys(gotFull!).sort(), Object.keys(full).sort(), 'no field more, none fewer');
      });

      it('get of an id that does not exist answers null', async () => {
        await seed(makeEndpoint());
        assert.equal(await store.get('ep_contract_missing'), null);
      });

      it('insert of a taken id throws and keeps the first record', async () => {
        const [first] = await seed(makeEndpoint({ description: 'first' }));
        await assert.rejects(store.insert({ ...makeEndpoint({ description: 'second' }), id: first.id }));
        assert.deepEqual(await store.get(first.id), first);
        assert.equal((await store.list({})).total, 1);
      });

      it('a record given or answered is the caller’s: changing the object changes nothing stored', async () => {
        const record = makeEndpoint({ headers: { 'x-a': '1' }, events: ['a'] });
        const kept = structuredClone(record);
        await store.insert(record);
        record.events.push('b');
        record.headers['x-b'] = '2';
        record.secrets[0].expiresAt = new Date();
        const read = await store.get(kept.id);
        assert.deepEqual(read, kept);
        read!.events.push('c');
        read!.headers['x-c'] = '3';
        read!.secrets.push({ sealed: 'x', createdAt: new Date(), expiresAt: null });
        read!.description = 'mutated';
        assert.deepEqual(await store.get(kept.id), kept);
        assert.deepEqual((await store.list({})).records, [kept]);
      });
    });

    describe('getMany', () => {
      it('getMany answers the records of the ids that exist, leaves out missing ones, in any order', async () => {
        const [a, b, c] = await seed(makeEndpoint(), makeEndpoint(), makeEndpoint());
        assert.deepEqual(byId(await store.getMany([c.id, 'ep_contract_missing', a.id])), byId([a, c]));
        assert.deepEqual(byId(await store.getMany([b.id])), [b]);
        assert.deepEqual(await store.getMany(['ep_contract_missing']), []);
      });

      it('getMany of no ids answers no records', async () => {
        await seed(makeEndpoint());
        assert.deepEqual(await store.getMany([]), []);
      });

      it('getMany with an id given twice answers that record once', async () => {
        const [a] = await seed(makeEndpoint());
        assert.deepEqual(await store.getMany([a.id, a.id]), [a]);
      });
    });

    describe('update', () => {
      it('update with the stored version answers true and stores the new record (version bumped)', async () => {
        const [a, b] = await seed(makeEndpoint({ owner: 'o' }), makeEndpoint({ owner: 'o' }));
        const next = changed(a, {
          url: 'https://receiver.example/moved',
          events: ['invoice.*'],
          description: 'moved',
          headers: { 'x-new': 'enc:v1:k1:n' },
          rateLimit: 5,
          ordering: 'fifo',
          signing: 'ed25519',
        });
        assert.equal(await store.update(next, 1), true);
        const stored = await store.get(a.id);
        assert.deepEqual(stored, next);
        assert.equal(stored!.version, 2);
        assert.deepEqual(await store.get(b.id), b, 'the other record is untouched');
        const third = changed(next, { description: 'again' });
        assert.equal(await store.update(third, 2), true);
        assert.deepEqual(await store.get(a.id), third);
        assert.equal(third.version, 3);
      });

      it('update with a stale version answers false and changes nothing', async () => {
        const [a] = await seed(makeEndpoint({ description: 'v1' }));
        const winner = changed(a, { description: 'winner' });
        assert.equal(await store.update(winner, 1), true);
        const loser = changed(a, { description: 'loser' });
        assert.equal(await store.update(loser, 1), false);
        assert.deepEqual(await store.get(a.id), winner);
        assert.equal(
          await store.update(changed(winner, { description: 'ahead' }), 3),
          false,
          'a version ahead is stale too',
        );
        assert.deepEqual(await store.get(a.id), winner);
      });

      it('update of an id that does not exist answers false and creates nothing', async () => {
        const ghost = makeEndpoint();
        assert.equal(await store.update(changed(ghost, { description: 'x' }), 1), false);
        assert.equal(await store.get(ghost.id), null);
        assert.equal((await store.list({})).total, 0);
      });

      it('update sets fields back to null, and list and subscribers follow the new owner', async () => {
        const [a] = await seed(
          makeEndpoint({ owner: 'before', description: 'd', rateLimit: 3, events: ['order.created', 'order.*'] }),
        );
        const next = changed(a, { owner: null, description: null, rateLimit: null, events: ['invoice.paid'] });
        assert.equal(await store.update(next, 1), true);
        assert.deepEqual(await store.get(a.id), next);
        assert.deepEqual(idsOf(await store.list({ owner: 'before' })), []);
        assert.deepEqual(idsOf(await store.list({ owner: null })), [a.id]);
        assert.deepEqual(await subscribersOf('before'), []);
        assert.deepEqual(await subscribersOf(null), [{ id: a.id, events: ['invoice.paid'], filter: null }]);
        assert.deepEqual(idsOf(await store.list({ patterns: ['order.*'] })), []);
        assert.deepEqual(idsOf(await store.list({ patterns: ['invoice.paid'] })), [a.id]);
      });

      it('concurrent updates in one process: every increment lands once (retrying on false)', async () => {
        const [a] = await seed(makeEndpoint({ description: '0' }));
        const other = await openAnother();
        const increment = async (via: EndpointStore, times: number) => {
          for (let done = 0; done < times; ) {
            const current = (await via.get(a.id))!;
            const next = changed(current, { description: String(Number(current.description) + 1) });
            if (await via.update(next, current.version)) done++;
          }
        };
        await Promise.all([increment(store, 10), increment(store, 10), increment(other, 10)]);
        const final = (await store.get(a.id))!;
        assert.equal(final.description, '30');
        assert.equal(final.version, 31);
      });
    });

    describe('delete', () => {
      it('delete answers true and removes the record; again, or of a missing id, false', async () => {
        const [a, b] = await seed(makeEndpoint(), makeEndpoint());
        assert.equal(await store.delete(a.id), true);
        assert.equal(await store.get(a.id), null);
        assert.equal(await store.delete(a.id), false);
        assert.equal(await store.delete('ep_contract_missing'), false);
        assert.deepEqual(idsOf(await store.list({})), [b.id]);
        await store.insert(a);
        assert.deepEqual(await store.get(a.id), a, 'a deleted id can be inserted again');
      });
    });

    describe('list', () => {
      it('list of an empty store: no records, total 0, pages 0', async () => {
        assert.deepEqual(await store.list({}), { records: [], page: 1, perPage: 0, total: 0, pages: 0 });
        const paged = await store.list({ perPage: 10 });
        assert.deepEqual(paged, { records: [], page: 1, perPage: 10, total: 0, pages: 0 });
      });

      it('list without perPage answers every match on one page: page 1, perPage = total, pages 1 (0 when none match)', async () => {
        const records = await seed(makeEndpoint(), makeEndpoint(), makeEndpoint());
        assert.deepEqual(await store.list({}), { records, page: 1, perPage: 3, total: 3, pages: 1 });
        const none = await store.list({ owner: 'nobody' });
        assert.deepEqual(none, { records: [], page: 1, perPage: 0, total: 0, pages: 0 });
      });

      it('list by owner: undefined any, null only without owner, a string exactly that owner', async () => {
        const [none, a, b, a2] = await seed(
          makeEndpoint({ owner: null }),
          makeEndpoint({ owner: 'a' }),
          makeEndpoint({ owner: 'b' }),
          makeEndpoint({ owner: 'a' }),
        );
        assert.deepEqual(idsOf(await store.list({})), [none.id, a.id, b.id, a2.id]);
        assert.deepEqual(idsOf(await store.list({ owner: undefined })), [none.id, a.id, b.id, a2.id]);
        assert.deepEqual(idsOf(await store.list({ owner: null })), [none.id]);
        assert.deepEqual(idsOf(await store.list({ owner: 'a' })), [a.id, a2.id]);
        assert.deepEqual(idsOf(await store.list({ owner: 'b' })), [b.id]);
        assert.deepEqual(idsOf(await store.list({ owner: 'c' })), []);
      });

      it('list by enabled: true only those without disabledAt, false only disabled ones', async () => {
        const [on, off, on2] = await seed(
          makeEndpoint(),
          makeEndpoint({ disabledAt: new Date(BASE), disabledReason: 'r' }),
          makeEndpoint({ enabledAt: new Date(BASE) }),
        );
        assert.deepEqual(idsOf(await store.list({ enabled: true })), [on.id, on2.id]);
        assert.deepEqual(idsOf(await store.list({ enabled: false })), [off.id]);
        assert.deepEqual(idsOf(await store.list({ enabled: undefined })), [on.id, off.id, on2.id]);
      });

      it('list by patterns: a record matches when one of its patterns is one of those asked (exact, case-sensitive)', async () => {
        const [orders, mixed, all, invoices, upper] = await seed(
          makeEndpoint({ events: ['order.*'] }),
          makeEndpoint({ events: ['order.*', 'x'] }),
          makeEndpoint({ events: ['*'] }),
          makeEndpoint({ events: ['invoice.paid', 'invoice.created'] }),
          makeEndpoint({ events: ['Order.*'] }),
        );
        assert.deepEqual(idsOf(await store.list({ patterns: ['order.*'] })), [orders.id, mixed.id]);
        assert.deepEqual(idsOf(await store.list({ patterns: ['x'] })), [mixed.id]);
        assert.deepEqual(idsOf(await store.list({ patterns: ['order.created', 'order.*', '*'] })), [
          orders.id,
          mixed.id,
          all.id,
        ]);
        assert.deepEqual(idsOf(await store.list({ patterns: ['invoice.created'] })), [invoices.id]);
        assert.deepEqual(idsOf(await store.list({ patterns: ['Order.*'] })), [upper.id]);
        assert.deepEqual(idsOf(await store.list({ patterns: ['order'] })), [], 'no prefix or wildcard matching');
        assert.deepEqual(idsOf(await store.list({ patterns: ['order.created'] })), [], 'patterns are not expanded');
        assert.equal((await store.list({ patterns: ['order.*'] })).total, 2);
      });

      it('list by patterns: none asked ([]) matches nothing', async () => {
        await seed(makeEndpoint({ events: ['*'] }));
        assert.deepEqual(await store.list({ patterns: [] }), { records: [], page: 1, perPage: 0, total: 0, pages: 0 });
      });

      it('list conditions combine with AND (owner, enabled, patterns, paging)', async () => {
        const off = { disabledAt: new Date(BASE), disabledReason: 'manual' };
        const [hit1, offHit, , unowned] = await seed(
          makeEndpoint({ owner: 't', events: ['order.*'] }),
          makeEndpoint({ owner: 't', events: ['order.*'], ...off }),
          makeEndpoint({ owner: 'u', events: ['order.*'] }),
          makeEndpoint({ owner: null, events: ['order.*'] }),
          makeEndpoint({ owner: 't', events: ['invoice.*'] }),
        );
        const [hit2, hit3] = await seed(
          makeEndpoint({ owner: 't', events: ['invoice.*', 'order.*'] }),
          makeEndpoint({ owner: 't', events: ['*'] }),
        );
        const query = { owner: 't', enabled: true, patterns: ['order.*', '*'] };
        assert.deepEqual(idsOf(await store.list(query)), [hit1.id, hit2.id, hit3.id]);
        const page2 = await store.list({ ...query, page: 2, perPage: 2 });
        assert.deepEqual(idsOf(page2), [hit3.id]);
        assert.deepEqual({ ...page2, records: [] }, { records: [], page: 2, perPage: 2, total: 3, pages: 2 });
        assert.deepEqual(idsOf(await store.list({ owner: 't', enabled: false, patterns: ['order.*'] })), [offHit.id]);
        assert.deepEqual(idsOf(await store.list({ owner: 't', enabled: false, patterns: ['invoice.*'] })), []);
        assert.deepEqual(idsOf(await store.list({ owner: null, enabled: false })), []);
        assert.deepEqual(idsOf(await store.list({ owner: null, patterns: ['order.*'] })), [unowned.id]);
      });

      it('list pages: page and perPage pick the slice, total and pages count every match, a page past the end is empty', async () => {
        const records = await seed(...Array.from({ length: 5 }, () => makeEndpoint()));
        const ids = records.map((record) => record.id);
        const page = (n: number) => store.list({ page: n, perPage: 2 });
        assert.deepEqual(await page(1), { records: records.slice(0, 2), page: 1, perPage: 2, total: 5, pages: 3 });
        assert.deepEqual(idsOf(await page(2)), ids.slice(2, 4));
        assert.deepEqual(idsOf(await page(3)), ids.slice(4));
        assert.deepEqual(await page(4), { records: [], page: 4, perPage: 2, total: 5, pages: 3 });
        assert.deepEqual(await page(40), { records: [], page: 40, perPage: 2, total: 5, pages: 3 });
        const first = await store.list({ perPage: 2 });
        assert.equal(first.page, 1, 'page defaults to 1');
        assert.deepEqual(idsOf(first), ids.slice(0, 2));
        const exact = await store.list({ page: 1, perPage: 5 });
        assert.deepEqual(
          { ...exact, records: idsOf(exact) },
          { records: ids, page: 1, perPage: 5, total: 5, pages: 1 },
        );
        const wide = await store.list({ page: 1, perPage: 100 });
        assert.deepEqual({ ...wide, records: [] }, { records: [], page: 1, perPage: 100, total: 5, pages: 1 });
      });

      it('list order is createdAt, then id for equal createdAt, whatever the insert order', async () => {
        const at = new Date('2030-01-01T00:00:00.500Z');
        const early = makeEndpoint({ createdAt: new Date('2029-12-31T23:59:59.999Z') });
        const sameB = makeEndpoint({ id: 'ep_contract_same_b', createdAt: at });
        const sameA = makeEndpoint({ id: 'ep_contract_same_a', createdAt: at });
        const late = makeEndpoint({ id: 'ep_contract_000000', createdAt: new Date('2030-01-01T00:00:00.501Z') });
        await seed(late, sameB, early, sameA);
        const expected = [early.id, sameA.id, sameB.id, late.id];
        assert.deepEqual(idsOf(await store.list({})), expected);
        const pages = [1, 2].map((n) => store.list({ page: n, perPage: 2 }));
        assert.deepEqual((await Promise.all(pages)).flatMap(idsOf), expected, 'paging keeps the order');
      });
    });

    describe('subscribers', () => {
      it('subscribers(owner): the enabled endpoints of exactly that owner, by id, as { id, events, filter }', async () => {
        const [, b, , d, , f] = await seed(
          makeEndpoint({ id: 'ep_contract_f', owner: 't', disabledAt: new Date(BASE), disabledReason: 'r' }),
          makeEndpoint({ id: 'ep_contract_c', owner: 't', events: ['order.*', 'x'] }),
          makeEndpoint({ id: 'ep_contract_b', owner: 'u' }),
          makeEndpoint({ id: 'ep_contract_a', owner: 't', events: ['*'], enabledAt: new Date(BASE) }),
          makeEndpoint({ id: 'ep_contract_e', owner: null }),
          makeEndpoint({ id: 'ep_contract_d', owner: 't', events: ['invoice.paid'] }),
        );
        assert.deepEqual(
          await subscribersOf('t'),
          [d, b, f].map(({ id, events, filter }) => ({ id, events, filter })),
        );
        assert.deepEqual(await subscribersOf('nobody'), []);
      });

      it('subscribers(null) are those without owner, apart from any string owner ("", "null")', async () => {
        const [none1, , , none2] = await seed(
          makeEndpoint({ owner: null }),
          makeEndpoint({ owner: '' }),
          makeEndpoint({ owner: 'null' }),
          makeEndpoint({ owner: null }),
          makeEndpoint({ owner: null, disabledAt: new Date(BASE), disabledReason: 'r' }),
        );
        const ids = (await store.subscribers(null)).map((entry) => entry.id);
        assert.deepEqual(ids, [none1.id, none2.id]);
        assert.equal((await store.subscribers('')).length, 1);
        assert.equal((await store.subscribers('null')).length, 1);
        assert.equal((await store.list({ owner: '' })).total, 1);
        assert.equal((await store.list({ owner: null })).total, 3);
      });
    });

    describe('filters', () => {
      /** A filter with what a store could lose: dotted keys, $ keys, nesting, arrays, unicode, nulls, numbers. */
      const FILTER = {
        'data.customer.country': { $in: ['FR', 'DE', null] },
        $or: [{ 'data.amount': { $gte: 10.5, $lt: 1e6 } }, { 'data.tags': ['vip', 'b2b'] }],
        'data.名前.😀': { $regex: '^注文|שלום$', $options: 'i' },
        'data.nested': { $eq: { a: [1, { b: null, c: [true, false] }], 'x.y': '', z: -0.25 } },
        'data.missing': null,
        $not: { type: { $exists: false } },
      };

      it('a filter round-trips whole: dotted and $ keys, nested objects, arrays, unicode, null values', async () => {
        const [a, none] = await seed(makeEndpoint({ owner: 'f', filter: FILTER }), makeEndpoint({ owner: 'f' }));
        assert.deepEqual((await store.get(a.id))!.filter, FILTER);
        assert.deepEqual(await store.get(a.id), a);
        assert.equal((await store.get(none.id))!.filter, null);
        assert.deepEqual(byId(await store.getMany([a.id, none.id])), byId([a, none]));
        assert.deepEqual((await store.list({ owner: 'f' })).records, [a, none]);
        assert.deepEqual(await subscribersOf('f'), [
          { id: a.id, events: a.events, filter: FILTER },
          { id: none.id, events: none.events, filter: null },
        ]);
      });

      it('update sets a filter, changes it and removes it (null)', async () => {
        const [a] = await seed(makeEndpoint({ owner: 'g' }));
        const set = changed(a, { filter: { 'data.x': 1 } });
        assert.equal(await store.update(set, 1), true);
        assert.deepEqual(await store.get(a.id), set);
        const other = changed(set, { filter: FILTER });
        assert.equal(await store.update(other, 2), true);
        assert.deepEqual((await store.get(a.id))!.filter, FILTER);
        const removed = changed(other, { filter: null });
        assert.equal(await store.update(removed, 3), true);
        assert.deepEqual(await store.get(a.id), removed);
        assert.deepEqual(await subscribersOf('g'), [{ id: a.id, events: a.events, filter: null }]);
      });

      it('a table made before filters keeps working: install adds what filters need, its rows read as having none', {
        skip: options.withoutFilters === undefined && 'this adapter has no older table to make',
      }, async () => {
        const [a] = await seed(makeEndpoint({ owner: 'h', description: 'before filters' }));
        await options.withoutFilters!(table);
        const older = await openAnother();
        await older.install();
        assert.deepEqual(await older.get(a.id), a);
        assert.deepEqual(await subscribersOf('h'), [{ id: a.id, events: a.events, filter: null }]);
        const filtered = changed(a, { filter: { 'data.x': { $gt: 1 } } });
        assert.equal(await older.update(filtered, 1), true);
        assert.deepEqual(await older.get(a.id), filtered);
        await older.install();
        assert.deepEqual(await older.get(a.id), filtered, 'installing again changes nothing');
      });

      it('a filter as large as the core allows (4 kB of JSON) round-trips', async () => {
        const large = Object.fromEntries(
          Array.from({ length: 60 }, (_, i) => [`data.field${i}`, { $in: [`välue-${i}`, i, '😀'.repeat(4)] }]),
        );
        assert.ok(Buffer.byteLength(JSON.stringify(large)) > 3_000);
        const [a] = await seed(makeEndpoint({ filter: large }));
        assert.deepEqual((await store.get(a.id))!.filter, large);
      });
    });

    describe('records over time', () => {
      it('rotation with grace: two secrets, the old one expiring, round-trip through update', async () => {
        const created = new Date('2030-02-02T02:02:02.202Z');
        const [a] = await seed(
          makeEndpoint({ secrets: [{ sealed: 'enc:v1:k1:old', createdAt: created, expiresAt: null }] }),
        );
        const rotatedAt = new Date('2030-03-03T03:03:03.303Z');
        const rotated = changed(a, {
          secrets: [
            { sealed: 'enc:v1:k1:old', createdAt: created, expiresAt: new Date(rotatedAt.getTime() + 86_400_000) },
            { sealed: 'enc:v1:k2:new', createdAt: rotatedAt, expiresAt: null },
          ],
        });
        assert.equal(await store.update(rotated, 1), true);
        const stored = (await store.get(a.id))!;
        assert.deepEqual(stored.secrets, rotated.secrets);
        assert.equal(stored.secrets[0].expiresAt!.toISOString(), '2030-03-04T03:03:03.303Z');
        assert.equal(stored.secrets[1].expiresAt, null);
        const pruned = changed(stored, { secrets: [stored.secrets[1]] });
        assert.equal(await store.update(pruned, 2), true);
        assert.deepEqual((await store.get(a.id))!.secrets, [rotated.secrets[1]]);
      });

      it('disable then enable: disabledAt, disabledReason and enabledAt round-trip, and the filters follow', async () => {
        const [a] = await seed(makeEndpoint({ owner: 'o' }));
        const disabled = changed(a, {
          disabledAt: new Date('2031-01-01T01:01:01.101Z'),
          disabledReason: 'endpoint failing for 5 days',
        });
        assert.equal(await store.update(disabled, 1), true);
        assert.deepEqual(await store.get(a.id), disabled);
        assert.deepEqual(await subscribersOf('o'), []);
        assert.deepEqual(idsOf(await store.list({ enabled: false })), [a.id]);
        assert.deepEqual(idsOf(await store.list({ enabled: true })), []);
        const enabled = changed(disabled, {
          disabledAt: null,
          disabledReason: null,
          enabledAt: new Date('2031-01-02T02:02:02.202Z'),
        });
        assert.equal(await store.update(enabled, 2), true);
        assert.deepEqual(await store.get(a.id), enabled);
        assert.deepEqual(
          (await store.subscribers('o')).map(({ id }) => id),
          [a.id],
        );
        assert.deepEqual(idsOf(await store.list({ enabled: true })), [a.id]);
        assert.deepEqual(idsOf(await store.list({ enabled: false })), []);
      });
    });

    describe('strings as given', () => {
      it('tenant isolation: owners "a", "A", "a " and " a" are four different tenants', async () => {
        const owners = ['a', 'A', 'a ', ' a'];
        const records = await seed(...owners.map((owner) => makeEndpoint({ owner })));
        for (const [i, owner] of owners.entries()) {
          assert.deepEqual(
            idsOf(await store.list({ owner })),
            [records[i].id],
            `list of owner ${JSON.stringify(owner)}`,
          );
          assert.deepEqual(
            (await store.subscribers(owner)).map(({ id }) => id),
            [records[i].id],
            `subscribers of owner ${JSON.stringify(owner)}`,
          );
          assert.equal((await store.get(records[i].id))!.owner, owner);
        }
      });

      it('unicode (emoji, CJK, right-to-left, combining marks) is kept as given in every text field, unnormalized', async () => {
        const owner = 'テナント😀 שלום';
        const record = makeEndpoint({
          url: 'https://receiver.example/鉤/🪝?q=مرحبا',
          owner,
          description: 'Zamówienia 📦 注文 الطلبات עברית e\u0301 \u202Bmixed\u202C 𝔘𝔫𝔦',
          events: ['注文.作成', 'pedido.*', '🚀.launched'],
          headers: { 'X-Tenant-名前': 'enc:v1:値😀', 'x-rtl': 'مرحبا بالعالم', 'x-emoji-🎉': '🎉' },
          disabledReason: 'منقطع — 切断',
          secrets: [{ sealed: 'enc:v1:k1:ñ', createdAt: new Date(BASE), expiresAt: null }],
        });
        const composed = makeEndpoint({ owner: '\u00e9' });
        const decomposed = makeEndpoint({ owner: 'e\u0301' });
        await seed(record, composed, decomposed);
        assert.deepEqual(await store.get(record.id), record);
        assert.deepEqual(idsOf(await store.list({ owner })), [record.id]);
        assert.deepEqual(idsOf(await store.list({ patterns: ['注文.作成'] })), [record.id]);
        assert.deepEqual(idsOf(await store.list({ patterns: ['🚀.launched'] })), [record.id]);
        assert.deepEqual(await subscribersOf(owner), [{ id: record.id, events: record.events, filter: null }]);
        assert.deepEqual(idsOf(await store.list({ owner: '\u00e9' })), [composed.id]);
        assert.deepEqual(idsOf(await store.list({ owner: 'e\u0301' })), [decomposed.id]);
      });

      it('long values: a 2048-character url, a 1000-character description, 100 patterns, 50 headers', async () => {
        const url = 'https://receiver.example/' + 'p'.repeat(2048 - 'https://receiver.example/'.length);
        assert.equal(url.length, 2048);
        const events = Array.from({ length: 100 }, (_, i) => `domain${i}.event${i}.*`);
        const headers = Object.fromEntries(
          Array.from({ length: 50 }, (_, i) => [`X-Header-${i}`, `enc:v1:k1:${'v'.repeat(200)}${i}`]),
        );
        const record = makeEndpoint({
          url,
          description: '説'.repeat(400) + '😀'.repeat(100) + 'd'.repeat(400),
          events,
          headers,
          owner: 'o'.repeat(255),
          disabledReason: 'r'.repeat(1000),
          disabledAt: new Date(BASE),
        });
        assert.equal(record.description!.length, 1000);
        await seed(record);
        assert.deepEqual(await store.get(record.id), record);
        assert.deepEqual(idsOf(await store.list({ patterns: ['domain99.event99.*'] })), [record.id]);
        assert.deepEqual(idsOf(await store.list({ owner: 'o'.repeat(255) })), [record.id]);
      });
    });

    describe('processes', () => {
      it('concurrent updates from two processes: 2 × 25 read-modify-write increments end at 50, none lost', async (t) => {
        const [counter] = await seed(makeEndpoint({ description: '0' }));
        const increments = 25;
        const args: UpdaterArguments = { ...options.child(table), id: counter.id, increments };
        const children = [runUpdater(args), runUpdater(args)];
        try {
          await Promise.all(children.map((child) => child.ready));
          for (const child of children) child.go();
          const results = await Promise.all(children.map((child) => child.done));
          t.diagnostic(`conflicts seen (false answers retried): ${results.map((r) => r.conflicts).join(', ')}`);
          for (const result of results) assert.equal(result.committed, increments);
        } finally {
          for (const child of children) child.kill();
        }
        const final = (await store.get(counter.id))!;
        assert.equal(final.description, String(2 * increments));
        assert.equal(final.version, 2 * increments + 1);
      });
    });
  });
}

interface UpdaterRun {
  /** Settles when the child has opened its store and waits for `go`. */
  ready: Promise<void>;
  go(): void;
  /** The child's last line: what it committed and how many `false` answers it retried. */
  done: Promise<{ committed: number; conflicts: number }>;
  kill(): void;
}

/** How long a child may take to start, or to finish its increments, on a loaded machine. */
const CHILD_WAIT_MS = 60_000;

/** Starts concurrent-updater.ts with `args`; it opens the store, says READY, and starts on a line on stdin. */
function runUpdater(args: UpdaterArguments): UpdaterRun {
  const script = new URL('./concurrent-updater.ts', import.meta.url).pathname;
  // the child is a plain node process, not a test file: it must not speak the runner's protocol
  const child = spawn(process.execPath, [script, JSON.stringify(args)], {
    cwd: ROOT,
    env: { ...process.env, NODE_TEST_CONTEXT: undefined },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners: Array<() => void> = [];
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const wait = <T>(what: string, found: () => T | undefined): Promise<T> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`child: no ${what} within ${CHILD_WAIT_MS} ms:\n${output}`)),
        CHILD_WAIT_MS,
      );
      const check = () => {
        const value = found();
        if (value !== undefined) {
          clearTimeout(timer);
          resolve(value);
        }
      };
      listeners.push(check);
      check();
      void exited.then((code) => {
        check();
        clearTimeout(timer);
        reject(new Error(`child exited (${code}) before ${what}:\n${output}`));
      });
    });
  // a child that died early closes its stdin: the GO written to it is lost, and its exit says why
  child.stdin.on('error', () => {});
  const ready = wait('READY', () => (/^READY$/m.test(output) ? true : undefined)).then(() => undefined);
  const done = wait('DONE line', () => {
    const match = /^DONE (\{.*\})$/m.exec(output);
    return match ? (JSON.parse(match[1]) as { committed: number; conflicts: number }) : undefined;
  });
  // when one wait fails the case stops awaiting the others: their failures are not unhandled
  ready.catch(() => {});
  done.catch(() => {});
  return {
    ready,
    go: () => child.stdin.end('GO\n'),
    done,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
