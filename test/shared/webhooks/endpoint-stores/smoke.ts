/**
 * A short check of one endpoint store's rules (round trip, version guard, listing filters and
 * pages, subscribers), for adapters to run against a real server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EndpointStore, StoredEndpoint } from '../../../../shared/webhooks/endpoint-stores/types.ts';

let serial = 0;
function endpoint(fields: Partial<StoredEndpoint> = {}): StoredEndpoint {
  serial += 1;
  const at = new Date(Date.UTC(2030, 0, 1, 0, 0, 0, serial));
  return {
    id: `ep_smoke${String(serial).padStart(4, '0')}`,
    url: 'https://example.test/hook',
    events: ['order.created'],
    owner: null,
    description: 'héllo 🚀',
    headers: { 'X-Token': 'enc:v1:k:abc' },
    secrets: [{ sealed: 'plain:whsec_x', createdAt: at, expiresAt: new Date(at.getTime() + 1234) }],
    signing: 'hmac-sha256',
    rateLimit: null,
    ordering: 'none',
    disabledAt: null,
    disabledReason: null,
    enabledAt: null,
    createdAt: at,
    updatedAt: at,
    version: 1,
    ...fields,
  };
}

export function describeSmoke(label: string, open: () => Promise<EndpointStore>): void {
  describe(label, () => {
    let store: EndpointStore;
    before(async () => {
      store = await open();
      await store.install();
      await store.install();
    });
    after(() => store.close());

    it('answers ping and round-trips a record', async () => {
      await store.ping();
      const record = endpoint({ owner: 'acme', rateLimit: 5, ordering: 'fifo', signing: 'ed25519' });
      await store.insert(record);
      assert.deepEqual(await store.get(record.id), record);
      assert.equal(await store.get('ep_missing'), null);
      await assert.rejects(store.insert(record));
    });

    it('guards updates by version and deletes', async () => {
      const record = endpoint();
      await store.insert(record);
      const next = { ...record, url: 'https://example.test/other', version: 2, disabledAt: new Date() };
      assert.equal(await store.update(next, 1), true);
      assert.equal(await store.update({ ...next, version: 3 }, 1), false);
      assert.deepEqual(await store.get(record.id), next);
      assert.deepEqual(
        (await store.getMany([record.id, 'ep_missing'])).map((r) => r.id),
        [record.id],
      );
      assert.equal(await store.delete(record.id), true);
      assert.equal(await store.delete(record.id), false);
      assert.equal(await store.update({ ...next, version: 3 }, 2), false);
    });

    it('lists by owner, state and patterns, in pages', async () => {
      const owner = `tenant-${label}`;
      const records = [
        endpoint({ owner, events: ['a.*'] }),
        endpoint({ owner, events: ['b.x', '*'] }),
        endpoint({ owner, events: ['c.y'], disabledAt: new Date() }),
        endpoint({ owner: owner.toUpperCase(), events: ['a.*'] }),
      ];
      for (const record of records) await store.insert(record);
      const all = await store.list({ owner });
      assert.deepEqual(
        all.records.map((r) => r.id),
        records.slice(0, 3).map((r) => r.id),
      );
      assert.equal(all.pages, 1);
      assert.equal(all.perPage, 3);
      const page = await store.list({ owner, page: 2, perPage: 2 });
      assert.deepEqual(
        { ids: page.records.map((r) => r.id), total: page.total, pages: page.pages },
        { ids: [records[2].id], total: 3, pages: 2 },
      );
      const enabled = await store.list({ owner, enabled: true, patterns: ['*', 'c.y'] });
      assert.deepEqual(
        enabled.records.map((r) => r.id),
        [records[1].id],
      );
      const none = await store.list({ owner: 'nobody' });
      assert.deepEqual(
        { total: none.total, pages: none.pages, records: none.records },
        { total: 0, pages: 0, records: [] },
      );
      assert.deepEqual(await store.subscribers(owner), [
        { id: records[0].id, events: ['a.*'] },
        { id: records[1].id, events: ['b.x', '*'] },
      ]);
    });
  });
}
