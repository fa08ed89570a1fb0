/**
 * The worker's endpoint records (shared/webhooks/endpoints/records.ts): read from the store once,
 * used while the claim's version matches and for at most the time to live, read again otherwise.
 * A store that counts its reads stands in for the adapter: what is checked is this module's rule.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { endpointRecords } from '../../../../shared/webhooks/endpoints/records.ts';
import type { EndpointStore, StoredEndpoint } from '../../../../shared/webhooks/endpoint-stores/types.ts';
import { makeEndpoint } from '../endpoint-stores/contract.ts';

function countingStore(records: Map<string, StoredEndpoint>) {
  const reads: string[][] = [];
  const store = {
    getMany: async (ids: readonly string[]) => {
      reads.push([...ids]);
      return ids.flatMap((id) => (records.has(id) ? [records.get(id) as StoredEndpoint] : []));
    },
  } as unknown as EndpointStore;
  return { store, reads };
}

describe('endpoint records of a worker', () => {
  it('reads an endpoint once while its version holds, again when the claim names a later version', async () => {
    const record = makeEndpoint();
    const records = new Map([[record.id, record]]);
    const { store, reads } = countingStore(records);
    let time = 0;
    const kept = endpointRecords(store, { now: () => time });
    assert.equal((await kept.load([{ id: record.id, version: 1 }])).get(record.id)?.url, record.url);
    await kept.load([{ id: record.id, version: 1 }]);
    assert.equal(reads.length, 1, 'the second claim is served from the process');
    records.set(record.id, { ...record, url: 'https://receiver.example/moved', version: 2 });
    time = 1;
    assert.equal(
      (await kept.load([{ id: record.id, version: 2 }])).get(record.id)?.url,
      'https://receiver.example/moved',
    );
    assert.equal(reads.length, 2);
  });

  it('reads an endpoint again once its time to live has passed, whatever the version', async () => {
    const record = makeEndpoint();
    const records = new Map([[record.id, record]]);
    const { store, reads } = countingStore(records);
    let time = 0;
    const kept = endpointRecords(store, { now: () => time, ttlMs: 10_000 });
    await kept.load([{ id: record.id, version: 1 }]);
    records.set(record.id, { ...record, url: 'https://receiver.example/edited-elsewhere' });
    time = 9_999;
    assert.equal((await kept.load([{ id: record.id, version: 1 }])).get(record.id)?.url, record.url);
    time = 10_000;
    assert.equal(
      (await kept.load([{ id: record.id, version: 1 }])).get(record.id)?.url,
      'https://receiver.example/edited-elsewhere',
    );
    assert.equal(reads.length, 2);
  });

  it('leaves out an endpoint gone from the store, and reads only the missing ones of a batch', async () => {
    const [a, b] = [makeEndpoint(), makeEndpoint()];
    const records = new Map([
      [a.id, a],
      [b.id, b],
    ]);
    const { store, reads } = countingStore(records);
    const kept = endpointRecords(store, { now: () => 0 });
    await kept.load([{ id: a.id, version: 1 }]);
    records.delete(b.id);
    const found = await kept.load([
      { id: a.id, version: 1 },
      { id: b.id, version: 1 },
    ]);
    assert.deepEqual([...found.keys()], [a.id]);
    assert.deepEqual(reads, [[a.id], [b.id]]);
  });
});

describe('endpoint records of a worker, in memory', () => {
  it('drops the records past their time to live at the next load: a removed endpoint is not held until others push it out', async () => {
    const [gone, live] = [makeEndpoint(), makeEndpoint()];
    const records = new Map([
      [gone.id, gone],
      [live.id, live],
    ]);
    const { store } = countingStore(records);
    let time = 0;
    const kept = endpointRecords(store, { now: () => time, ttlMs: 10_000 });
    await kept.load([{ id: gone.id, version: 1 }]);
    records.delete(gone.id); // removed: no claim names it again
    time = 5_000;
    await kept.load([{ id: live.id, version: 1 }]);
    assert.equal(kept.size, 2, 'both are within their time to live');
    time = 10_000;
    await kept.load([{ id: live.id, version: 1 }]);
    assert.equal(kept.size, 1, "the removed endpoint's record is dropped once expired");
    time = 20_000;
    await kept.load([{ id: live.id, version: 1 }]);
    assert.equal(kept.size, 1, 'an endpoint read again is kept');
  });
});
