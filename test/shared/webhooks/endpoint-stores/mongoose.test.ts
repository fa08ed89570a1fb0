/**
 * The mongoose adapter. The contract runs against the MongoDB server that TEST_MONGODB_URL names
 * (e.g. `mongodb://127.0.0.1:27017/`), in a database of this file's own (`app_test_<random hex>`,
 * dropped at the end); without it the contract is skipped (no MongoDB runs on the test machine;
 * docs/endpoint-stores.md says how to start one in a container). That Mongoose's casting keeps
 * every field of a record is checked either way: it needs no server.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import mongoose from 'mongoose';
import {
  endpointSchema,
  fromDocument,
  openStore,
  toDocument,
  type EndpointDocument,
} from '../../../../shared/webhooks/endpoint-stores/mongoose.ts';
import type { StoreContext } from '../../../../shared/webhooks/endpoint-stores/types.ts';
import { describeEndpointStoreContract, makeEndpoint } from './contract.ts';

const server = process.env.TEST_MONGODB_URL;

describe('mongoose documents', () => {
  it("a record cast through the store's schema comes back unchanged (headers and a filter with dots and $, dates, nulls)", async () => {
    const connection = mongoose.createConnection();
    try {
      const model = connection.model<EndpointDocument>('cast-check', endpointSchema('cast_check'));
      const record = makeEndpoint({
        owner: 'tenant 😀 ',
        description: '',
        headers: { 'x.dotted': 'enc:v1:a', $dollar: 'enc:v1:b', 'X-Empty': '' },
        filter: { 'data.a.b': { $in: ['x', null] }, $or: [{ type: { $regex: '^o' } }, { 'data.n': { $gt: 1.5 } }] },
        secrets: [
          {
            sealed: 'enc:v1:k1:old',
            createdAt: new Date('2030-01-01T00:00:00.001Z'),
            expiresAt: new Date('2031-01-01T00:00:00.999Z'),
          },
          { sealed: 'enc:v1:k1:new', createdAt: new Date('2030-06-01T00:00:00.500Z'), expiresAt: null },
        ],
        rateLimit: 7,
        disabledAt: new Date('2031-05-06T07:08:09.010Z'),
        disabledReason: 'r',
      });
      const document = new model(toDocument(record));
      await document.validate();
      assert.deepEqual(fromDocument(document.toObject() as EndpointDocument), record);
      const { filter: _filter, ...older } = document.toObject() as EndpointDocument;
      assert.equal(fromDocument(older as EndpointDocument).filter, null, 'a document written before filters has none');
    } finally {
      await connection.destroy();
    }
  });
});

if (server) {
  const database = `app_test_${randomBytes(6).toString('hex')}`;
  // the database part of the URL (after the hosts, before the options) replaced by this file's own
  const match = /^(mongodb(?:\+srv)?:\/\/[^/?]+)(?:\/[^?]*)?(\?.*)?$/.exec(server);
  if (!match) throw new Error('TEST_MONGODB_URL: expected mongodb://host[:port][,…]/[database][?options]');
  const url = `${match[1]}/${database}${match[2] ?? ''}`;
  after(async () => {
    const connection = await mongoose.createConnection(url).asPromise();
    try {
      await connection.dropDatabase();
    } finally {
      await connection.destroy();
    }
  });
  const contextOf = (table: string): StoreContext => ({
    name: 'registry',
    options: { adapter: 'mongoose', url },
    table,
  });
  describeEndpointStoreContract('mongoose', (table) => openStore(contextOf(table)), {
    child: (table) => ({ context: contextOf(table) }),
  });
} else {
  describe('endpoint store contract: mongoose', {
    skip: 'TEST_MONGODB_URL is not set; run MongoDB in a container, see docs',
  }, () => {});
}
