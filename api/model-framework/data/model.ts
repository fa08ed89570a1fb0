import type { Queryable, Sql } from '../../../shared/db/connect.ts';
import { badRequest, unprocessable } from '../../../shared/errors/app-error.ts';
import { transaction } from '../../../shared/db/transaction.ts';
import { deepestPage, pageOffset } from '../../../shared/db/page-depth.ts';
import { newExternalId } from './external-id.ts';
import {
  countRows,
  deleteRow,
  insertRow,
  selectBatch,
  selectByExternalId,
  selectExternalIds,
  selectInternalIds,
  selectMany,
  selectPage,
  updateRow,
  type Row,
} from './queries.ts';
import type { Field, ModelShape } from './shape.ts';
import { Types, type ModelChange, type ModelDeclaration } from './types.ts';
import { checkInput } from './values.ts';
import { modelWriteError } from './write-errors.ts';

/** A record as a model returns it: internal `id`, `externalId`, fields, timestamps; foreign keys as internal ids. */
export interface ModelRecord {
  id: string;
  externalId: string;
  [field: string]: unknown;
}

/** A record in public form: no `id`, foreign keys as `externalId`s. */
export interface PublicRecord {
  externalId?: string;
  [field: string]: unknown;
}

/** What `Model.paginate()` answers: a pagination object. */
export interface Page<T = ModelRecord> {
  records: T[];
  page: number;
  perPage: number;
  total: number;
  pages: number;
  /** The deepest page this listing answers at this `perPage` (api.maxPageOffset): its links stop there. */
  deepestPage: number;
}

export interface Model {
  readonly name: string;
  readonly collection: string;
  readonly table: string;
  readonly shape: ModelShape;
  readonly declaration: ModelDeclaration;
  /**
   * One page in creation order with the counters: `{records, page, perPage, total, pages,
   * deepestPage}`; with `where` (field -> value, scalar fields), only the records whose fields
   * equal those values. `page` and `perPage` are whole numbers of at least 1 (else 400
   * `APP_PAGINATION_INVALID`), and the page starts at most `api.maxPageOffset` records in (else
   * 422 `APP_PAGE_TOO_DEEP`, shared/db/page-depth.ts: PostgreSQL reads every record an OFFSET
   * skips). With `keep`, the listing is only the records `keep` keeps of those matching (the
   * records a caller may see): the matching records are read in batches of `LISTING_BATCH`, each
   * given to `keep`, so the page and its `total` count only what is kept, at the cost of reading
   * every matching record.
   */
  paginate(
    pagination: { page: number; perPage: number },
    where?: Readonly<Record<string, string | number | boolean | null>>,
    options?: { keep?: (records: readonly ModelRecord[]) => Promise<readonly ModelRecord[]> },
  ): Promise<Page>;
  /** The record with this external id, if any. */
  find(externalId: string): Promise<ModelRecord | undefined>;
  /**
   * The records with these keys, each an internal id (digits, as foreign keys hold them) or an
   * `externalId`, in one statement; in no particular order, unknown keys left out (the GraphQL
   * layer's batch loading of references).
   */
  findMany(keys: readonly string[]): Promise<ModelRecord[]>;
  /** Checks the input (public form), resolves foreign keys, inserts; 422 on invalid input or an unknown reference. */
  create(input: Record<string, unknown>): Promise<ModelRecord>;
  /**
   * Like create for the given fields only; undefined when there is no such record. An input
   * naming no field writes nothing and emits nothing: the record as it is. `check` is given
   * the record as written, inside the write's transaction and before its event: what it throws
   * undoes the write and is the answer (a policy refusing what the change made of the record).
   */
  update(
    externalId: string,
    input: Record<string, unknown>,
    options?: { check?: (record: ModelRecord) => void | Promise<void> },
  ): Promise<ModelRecord | undefined>;
  /** Deletes the record; whether there was one. */
  destroy(externalId: string): Promise<boolean>;
  /**
   * The public form of records or plain objects: declared fields, `externalId`, timestamps;
   * every foreign key becomes the referenced record's `externalId`, looked up with one
   * statement per referenced model for the whole list. A foreign key that is not an internal
   * id (digits) is taken to be an `externalId` already and kept.
   */
  publish(records: readonly object[]): Promise<PublicRecord[]>;
  publish(record: object): Promise<PublicRecord>;
  /** A record-to-be with the declared defaults, for `new` forms. */
  template(): PublicRecord;
}

/** The models of one application, by name and by collection. */
export interface Models {
  get(name: string): Model | undefined;
  byCollection(collection: string): Model | undefined;
  all(): readonly Model[];
}

const modelOfRecord = new WeakMap<object, Model>();
const publishedRecords = new WeakSet<object>();

/** The model a record was read by (records only, not plain objects). */
export const modelOf = (record: object): Model | undefined => modelOfRecord.get(record);

/** Whether an object is already in public form (made by `publish()`). */
export const isPublished = (record: object): boolean => publishedRecords.has(record);

const INTERNAL_ID = /^\d+$/;

/** How many records a listing with `keep` reads per statement (`Model.paginate`). */
export const LISTING_BATCH = 500;

/**
 * `paginate()`'s page and page size, which callers may take straight from a client (a GraphQL
 * argument): each a whole number of at least 1, and the page's offset a safe integer. Otherwise
 * 400 `APP_PAGINATION_INVALID`, as REST answers bad `?page=` and `?per_page=`, rather than the
 * database's refusal of a negative LIMIT or OFFSET surfacing as an unexpected error.
 */
function checkPaging(page: number, perPage: number): void {
  for (const [parameter, value] of [
    ['page', page],
    ['perPage', perPage],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw badRequest(`${parameter} must be a whole number of at least 1, got ${String(value)}`, {
        code: 'APP_PAGINATION_INVALID',
        data: { parameter, value },
      });
  }
  if (!Number.isSafeInteger((page - 1) * perPage))
    throw badRequest(`page ${page} is too far for perPage ${perPage}`, {
      code: 'APP_PAGINATION_INVALID',
      data: { parameter: 'page', value: page },
    });
}

function recordFromRow(model: Model, row: Row): ModelRecord {
  const { shape } = model;
  const record: ModelRecord = { id: String(row.id), externalId: row.external_id as string };
  for (const field of shape.fields) {
    let value = row[field.column];
    if ((field.type === Types.INTEGER || field.type === Types.NUMBER) && typeof value === 'string')
      value = Number(value);
    if (field.type === Types.ObjectId && value !== null && value !== undefined) value = String(value);
    record[field.name] = value;
  }
  if (shape.timestamps) {
    record.createdAt = row.created_at;
    record.updatedAt = row.updated_at;
  }
  modelOfRecord.set(record, model);
  return record;
}

function columnsFor(
  sql: Sql,
  shape: ModelShape,
  values: Record<string, unknown>,
  internalIds: Map<string, Map<string, string>>,
): Row {
  const row: Row = {};
  for (const field of shape.fields) {
    if (!(field.name in values)) continue;
    const value = values[field.name];
    if (field.type === Types.ObjectId && value !== null)
      row[field.column] = internalIds.get(field.ref as string)?.get(value as string);
    else if (field.type === Types.JSON && value !== null)
      row[field.column] = sql.json(value as Parameters<Sql['json']>[0]);
    else row[field.column] = value;
  }
  return row;
}

/**
 * 422 `APP_REFERENCE_INVALID` for reference fields of `values` (public form) that name no
 * record, `data.errors` = `[{field, message, value}]`: also the answer for a record the caller
 * may not see (api/model-framework/data/policy.ts), which must not be told from one that does
 * not exist.
 */
export function referenceInvalid(fields: readonly Field[], values: Readonly<Record<string, unknown>>) {
  return unprocessable(`a referenced record does not exist: ${fields.map((field) => field.name).join(', ')}`, {
    code: 'APP_REFERENCE_INVALID',
    data: {
      errors: fields.map((field) => ({
        field: field.name,
        message: `no ${field.ref} has this externalId`,
        value: values[field.name],
      })),
    },
  });
}

/**
 * Builds the models of an application over one connection pool. `shapes` come from
 * `compileShape` and have been checked against each other (registry.ts).
 */
/** Where the changes of models that emit them go (api/model-framework/data/model-events.ts); called inside the write's transaction. */
export interface ModelEvents {
  emit(tx: Queryable, model: Model, change: ModelChange, record: ModelRecord): Promise<void>;
}

/** What the models run on: the pool, the sink of their webhook events, and the paging bound (`api.maxPageOffset`). */
export interface ModelDeps {
  sql: Sql;
  events?: ModelEvents;
  maxPageOffset: number;
}

export function createModels(deps: ModelDeps, shapes: readonly ModelShape[]): Models {
  const { sql } = deps;
  const byName = new Map<string, Model>();
  const byCollection = new Map<string, Model>();
  const referenced = (field: Field): Model => byName.get(field.ref as string) as Model;

  /** externalId -> internal id of every reference in `values`, one statement per referenced model; 422 for unknown ones. */
  async function resolveReferences(
    shape: ModelShape,
    values: Record<string, unknown>,
  ): Promise<Map<string, Map<string, string>>> {
    const wanted = new Map<string, Set<string>>();
    for (const field of shape.references) {
      const value = values[field.name];
      if (typeof value === 'string')
        wanted.set(field.ref as string, (wanted.get(field.ref as string) ?? new Set()).add(value));
    }
    const found = new Map<string, Map<string, string>>();
    await Promise.all(
      [...wanted].map(async ([ref, ids]) =>
        found.set(ref, await selectInternalIds(sql, (byName.get(ref) as Model).table, [...ids])),
      ),
    );
    const missing = shape.references.filter(
      (field) =>
        typeof values[field.name] === 'string' && !found.get(field.ref as string)?.has(values[field.name] as string),
    );
    if (missing.length > 0) throw referenceInvalid(missing, values);
    return found;
  }

  async function publishMany(model: Model, records: readonly object[]): Promise<PublicRecord[]> {
    const { shape } = model;
    const wanted = new Map<Model, Set<string>>();
    for (const record of records) {
      if (publishedRecords.has(record)) continue;
      for (const field of shape.references) {
        const value = (record as Record<string, unknown>)[field.name];
        if (
          (typeof value === 'string' && INTERNAL_ID.test(value)) ||
          typeof value === 'number' ||
          typeof value === 'bigint'
        ) {
          const target = referenced(field);
          wanted.set(target, (wanted.get(target) ?? new Set()).add(String(value)));
        }
      }
    }
    const lookups = new Map<Model, Map<string, string>>();
    await Promise.all(
      [...wanted].map(async ([target, ids]) =>
        lookups.set(target, await selectExternalIds(sql, target.table, [...ids])),
      ),
    );
    return records.map((record) => {
      if (publishedRecords.has(record)) return record as PublicRecord;
      const source = record as Record<string, unknown>;
      const output: PublicRecord = {};
      if (source.externalId !== undefined) output.externalId = source.externalId as string;
      for (const field of shape.fields) {
        if (!(field.name in source)) continue;
        const value = source[field.name];
        if (field.type === Types.ObjectId && value !== null && value !== undefined) {
          const text = String(value);
          output[field.name] = INTERNAL_ID.test(text) ? (lookups.get(referenced(field))?.get(text) ?? null) : text;
        } else {
          output[field.name] = value;
        }
      }
      if (shape.timestamps) {
        if ('createdAt' in source) output.createdAt = source.createdAt;
        if ('updatedAt' in source) output.updatedAt = source.updatedAt;
      }
      publishedRecords.add(output);
      return output;
    });
  }

  /**
   * The window `offset`..`offset + limit` of the records `keep` keeps of those matching `columns`,
   * and how many it keeps in all: every matching record is read, batch after batch.
   */
  async function keptWindow(
    model: Model,
    columns: Readonly<Record<string, string | number | boolean | null>>,
    window: { offset: number; limit: number },
    keep: (records: readonly ModelRecord[]) => Promise<readonly ModelRecord[]>,
  ): Promise<{ records: ModelRecord[]; total: number }> {
    const records: ModelRecord[] = [];
    let total = 0;
    let afterId: string | undefined;
    for (;;) {
      const rows = await selectBatch(sql, model.table, model.shape.columns, { afterId, limit: LISTING_BATCH }, columns);
      if (rows.length === 0) break;
      afterId = String(rows[rows.length - 1].id);
      for (const record of await keep(rows.map((row) => recordFromRow(model, row)))) {
        if (total >= window.offset && records.length < window.limit) records.push(record);
        total += 1;
      }
      if (rows.length < LISTING_BATCH) break;
    }
    return { records, total };
  }

  function build(shape: ModelShape): Model {
    const emits = (change: ModelChange) =>
      deps.events !== undefined && (shape.declaration.webhooks?.events ?? []).includes(change);
    /** Runs the write's statements; their PostgreSQL errors name the model's fields (write-errors.ts). */
    const statements = async <T>(db: Queryable, write: (db: Queryable) => Promise<T>): Promise<T> => {
      try {
        return await write(db);
      } catch (error) {
        throw modelWriteError(shape, error);
      }
    };
    /**
     * Runs a write in a transaction: a request answered 503 by its timeout never commits it
     * (shared/db/transaction.ts). When the model emits this change, the event's deliveries and
     * jobs are written in the same transaction (a write that rolls back emits nothing, an emit
     * that fails undoes the write).
     */
    const writing = <T extends ModelRecord | boolean | undefined>(
      change: ModelChange,
      write: (db: Queryable) => Promise<T>,
      check?: (record: ModelRecord) => void | Promise<void>,
    ): Promise<T> =>
      transaction(sql, async (tx) => {
        const record = await statements(tx, write);
        if (typeof record === 'object' && check) await check(record);
        if (typeof record === 'object' && emits(change))
          await (deps.events as ModelEvents).emit(tx, model, change, record);
        return record;
      });
    const model: Model = {
      name: shape.name,
      collection: shape.collection,
      table: shape.table,
      shape,
      declaration: shape.declaration,
      async paginate({ page, perPage }, where = {}, options = {}) {
        checkPaging(page, perPage);
        const offset = pageOffset(page, perPage, deps.maxPageOffset, []);
        const columns = Object.fromEntries(
          Object.entries(where).map(([name, value]) => {
            const field = shape.fields.find(
              (candidate) => candidate.name === name && candidate.type !== Types.ObjectId,
            );
            if (!field) throw new Error(`${shape.name}.paginate: "${name}" is not a scalar field of the model`);
            return [field.column, value];
          }),
        );
        const { records, total } = options.keep
          ? await keptWindow(model, columns, { offset, limit: perPage }, options.keep)
          : {
              total: await countRows(sql, shape.table, columns),
              records: (await selectPage(sql, shape.table, shape.columns, { limit: perPage, offset }, columns)).map(
                (row) => recordFromRow(model, row),
              ),
            };
        return {
          records,
          page,
          perPage,
          total,
          pages: Math.ceil(total / perPage),
          deepestPage: deepestPage(perPage, deps.maxPageOffset),
        };
      },
      async find(externalId) {
        const row = await selectByExternalId(sql, shape.table, shape.columns, externalId);
        return row ? recordFromRow(model, row) : undefined;
      },
      async findMany(keys) {
        if (keys.length === 0) return [];
        const isId = (key: string) => key.length <= 18 && INTERNAL_ID.test(key); // fits a bigint
        const ids = keys.filter(isId);
        const externalIds = keys.filter((key) => !isId(key));
        const rows = await selectMany(sql, shape.table, shape.columns, { ids, externalIds });
        return rows.map((row) => recordFromRow(model, row));
      },
      async create(input) {
        const values = checkInput(shape, input, 'create');
        const ids = await resolveReferences(shape, values);
        const row = columnsFor(sql, shape, values, ids);
        row.external_id = newExternalId();
        return writing('created', async (db) =>
          recordFromRow(model, await insertRow(db, shape.table, shape.columns, row)),
        );
      },
      async update(externalId, input, options = {}) {
        const values = checkInput(shape, input, 'update');
        const ids = await resolveReferences(shape, values);
        const row = columnsFor(sql, shape, values, ids);
        // no field given: nothing changes, so nothing is written, `updatedAt` stays and no event is emitted
        if (Object.keys(row).length === 0) return model.find(externalId);
        if (shape.timestamps) row.updated_at = new Date();
        return writing(
          'updated',
          async (db) => {
            const updated = await updateRow(db, shape.table, shape.columns, externalId, row);
            return updated ? recordFromRow(model, updated) : undefined;
          },
          options.check,
        );
      },
      async destroy(externalId) {
        if (!emits('deleted')) return writing('deleted', (db) => deleteRow(db, shape.table, externalId));
        const gone = await writing('deleted', async (db) => {
          const existing = await selectByExternalId(db, shape.table, shape.columns, externalId);
          return existing && (await deleteRow(db, shape.table, externalId))
            ? recordFromRow(model, existing)
            : undefined;
        });
        return gone !== undefined;
      },
      publish: (async (input: object | readonly object[]) =>
        Array.isArray(input) ? publishMany(model, input) : (await publishMany(model, [input]))[0]) as Model['publish'],
      template() {
        const output: PublicRecord = {};
        for (const field of shape.fields) {
          output[field.name] = field.hasDefault
            ? typeof field.default === 'function'
              ? (field.default as () => unknown)()
              : field.default
            : null;
        }
        publishedRecords.add(output);
        return output;
      },
    };
    return model;
  }

  for (const shape of shapes) {
    const model = build(shape);
    byName.set(shape.name, model);
    byCollection.set(shape.collection, model);
  }
  const all = [...byName.values()];
  return {
    get: (name) => byName.get(name),
    byCollection: (collection) => byCollection.get(collection),
    all: () => all,
  };
}
