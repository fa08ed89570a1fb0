/**
 * The endpoint store on MongoDB through Mongoose (`adapter: 'mongoose'`, `url` a `mongodb://` or
 * `mongodb+srv://` connection string naming the database). The store opens a Connection of its own
 * (never Mongoose's global default one, which the application may use for something else) on first
 * use, and opens it again on the next call after a failed attempt: Mongoose does not retry an
 * initial connection by itself.
 *
 * Stored shape: one document per endpoint in the collection named by `webhooks.table`, `_id` the
 * endpoint id; `headers` as an array of `{ name, value }` (a header name may hold `.` or start with
 * `$`, which MongoDB field names and Mongoose maps refuse or treat specially), `secrets` as embedded
 * documents with BSON dates, the other dates BSON dates (milliseconds, UTC). Index
 * `{ owner: 1, disabledAt: 1 }` for listings and subscribers; no collection or index is made
 * implicitly: `install()` makes both.
 */
import mongoose, { type Connection, type Model, Schema } from 'mongoose';
import type { EndpointStore, StoreContext, StoredEndpoint, StoredEndpointQuery, SubscriberEndpoint } from './types.ts';
import { listCountedFirst } from './paging.ts';

/** An endpoint as its document holds it. */
export interface EndpointDocument {
  _id: string;
  url: string;
  events: string[];
  /** The filter's JSON text: its keys are paths with dots and operators starting with `$`, which MongoDB field names shun. */
  filter: string | null;
  owner: string | null;
  description: string | null;
  headers: { name: string; value: string }[];
  secrets: { sealed: string; createdAt: Date; expiresAt: Date | null }[];
  signing: StoredEndpoint['signing'];
  rateLimit: number | null;
  ordering: StoredEndpoint['ordering'];
  disabledAt: Date | null;
  disabledReason: string | null;
  enabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

/**
 * The schema: no `required` validators (an empty string would fail them, and the core has checked
 * every field before it reaches a store), no `__v` (the record's own `version` is the guard), no
 * automatic timestamps (`createdAt` and `updatedAt` are the core's).
 */
export function endpointSchema(collection: string): Schema<EndpointDocument> {
  const header = new Schema({ name: String, value: String }, { _id: false });
  const secret = new Schema(
    { sealed: String, createdAt: Date, expiresAt: { type: Date, default: null } },
    { _id: false },
  );
  const schema = new Schema<EndpointDocument>(
    {
      _id: { type: String },
      url: { type: String },
      events: { type: [String] },
      filter: { type: String, default: null },
      owner: { type: String, default: null },
      description: { type: String, default: null },
      headers: { type: [header], default: [] },
      secrets: { type: [secret], default: [] },
      signing: { type: String },
      rateLimit: { type: Number, default: null },
      ordering: { type: String },
      disabledAt: { type: Date, default: null },
      disabledReason: { type: String, default: null },
      enabledAt: { type: Date, default: null },
      createdAt: { type: Date },
      updatedAt: { type: Date },
      version: { type: Number },
    },
    { collection, versionKey: false, timestamps: false, autoIndex: false, autoCreate: false, strict: 'throw' },
  );
  schema.index({ owner: 1, disabledAt: 1 });
  return schema;
}

export function toDocument(endpoint: StoredEndpoint): EndpointDocument {
  return {
    _id: endpoint.id,
    url: endpoint.url,
    events: [...endpoint.events],
    filter: endpoint.filter === null ? null : JSON.stringify(endpoint.filter),
    owner: endpoint.owner,
    description: endpoint.description,
    headers: Object.entries(endpoint.headers).map(([name, value]) => ({ name, value })),
    secrets: endpoint.secrets.map((secret) => ({
      sealed: secret.sealed,
      createdAt: secret.createdAt,
      expiresAt: secret.expiresAt,
    })),
    signing: endpoint.signing,
    rateLimit: endpoint.rateLimit,
    ordering: endpoint.ordering,
    disabledAt: endpoint.disabledAt,
    disabledReason: endpoint.disabledReason,
    enabledAt: endpoint.enabledAt,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
    version: endpoint.version,
  };
}

/** A document's filter: absent (written before filters) or null is none. */
const filterOfText = (text: string | null | undefined): Record<string, unknown> | null =>
  text === null || text === undefined ? null : (JSON.parse(text) as Record<string, unknown>);

export function fromDocument(document: EndpointDocument): StoredEndpoint {
  return {
    id: document._id,
    url: document.url,
    events: [...document.events],
    filter: filterOfText(document.filter),
    owner: document.owner ?? null,
    description: document.description ?? null,
    headers: Object.fromEntries(document.headers.map((header) => [header.name, header.value])),
    secrets: document.secrets.map((secret) => ({
      sealed: secret.sealed,
      createdAt: secret.createdAt,
      expiresAt: secret.expiresAt ?? null,
    })),
    signing: document.signing,
    rateLimit: document.rateLimit ?? null,
    ordering: document.ordering,
    disabledAt: document.disabledAt ?? null,
    disabledReason: document.disabledReason ?? null,
    enabledAt: document.enabledAt ?? null,
    createdAt: document.createdAt,
    updatedAt: document.updatedAt,
    version: document.version,
  };
}

/** A listing's filter. `{ field: null }` matches null and missing alike; the store always writes null. */
function filterOf(query: StoredEndpointQuery): mongoose.QueryFilter<EndpointDocument> {
  const filter: Record<string, unknown> = {};
  if (query.owner !== undefined) filter.owner = query.owner;
  if (query.enabled === true) filter.disabledAt = null;
  else if (query.enabled === false) filter.disabledAt = { $ne: null };
  // `$in` on an array field: any element equal to any pattern (an empty list matches nothing)
  if (query.patterns !== undefined) filter.events = { $in: [...query.patterns] };
  return filter as mongoose.QueryFilter<EndpointDocument>;
}

/** Opens the store; the connection is made on first use. */
export async function openStore(context: StoreContext): Promise<EndpointStore> {
  const { url } = context.options;
  if (!url) throw new Error(`stores.${context.name}: the mongoose adapter needs a url`);
  const connection: Connection = mongoose.createConnection();
  const model: Model<EndpointDocument> = connection.model<EndpointDocument>(
    `endpoint-store:${context.table}`,
    endpointSchema(context.table),
  );

  let opening: Promise<Connection> | undefined;
  const open = (): Promise<Connection> =>
    (opening ??= connection.openUri(url, { autoIndex: false, autoCreate: false }).catch((error: unknown) => {
      opening = undefined;
      throw error;
    }));

  return {
    name: context.name,
    adapter: 'mongoose',

    async install() {
      await open();
      // both are idempotent: an existing collection (NamespaceExists) is ignored, an existing
      // identical index is left as it is; so two processes may install at once
      await model.createCollection();
      await model.createIndexes();
    },

    async ping() {
      const opened = await open();
      await opened.db!.command({ ping: 1 });
    },

    async close() {
      // destroy, not close: the connection leaves Mongoose's list of connections for good
      await connection.destroy();
    },

    async get(id) {
      await open();
      const document = await model.findById(id).lean<EndpointDocument>();
      return document ? fromDocument(document) : null;
    },

    async getMany(ids) {
      if (ids.length === 0) return [];
      await open();
      const documents = await model.find({ _id: { $in: [...ids] } }).lean<EndpointDocument[]>();
      return documents.map(fromDocument);
    },

    async list(query) {
      await open();
      const filter = filterOf(query);
      return listCountedFirst(
        query,
        () => model.countDocuments(filter),
        async ({ offset, limit }) => {
          let find = model.find(filter).sort({ createdAt: 1, _id: 1 });
          if (limit !== undefined) find = find.skip(offset).limit(limit);
          return (await find.lean<EndpointDocument[]>()).map(fromDocument);
        },
      );
    },

    async subscribers(owner) {
      await open();
      const documents = await model
        .find({ owner, disabledAt: null }, { events: 1, filter: 1 })
        .sort({ _id: 1 })
        .lean<Pick<EndpointDocument, '_id' | 'events' | 'filter'>[]>();
      return documents.map(
        (document): SubscriberEndpoint => ({
          id: document._id,
          events: document.events,
          filter: filterOfText(document.filter),
        }),
      );
    },

    async insert(endpoint) {
      await open();
      // a taken id fails on the `_id` index (E11000)
      await model.create(toDocument(endpoint));
    },

    async update(endpoint, expectedVersion) {
      await open();
      const { _id, ...fields } = toDocument(endpoint);
      const result = await model.updateOne({ _id, version: expectedVersion }, { $set: fields });
      return result.matchedCount > 0;
    },

    async delete(id) {
      await open();
      const result = await model.deleteOne({ _id: id });
      return result.deletedCount > 0;
    },
  };
}
