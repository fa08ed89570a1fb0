/**
 * The event-type catalog (docs/events.md "Event-type catalog"): types with a description, an optional JSON
 * Schema for `data`, examples and a deprecated flag. One catalog for the service; admins change it,
 * every role reads it (the REST and GraphQL role rules; the CLI acts as an admin).
 */
import { conflict, notFound, unprocessable } from '../../errors/app-error.ts';
import { clip, describeValue } from '../../errors/describe-value.ts';
import { isStoredAsGiven } from '../../db/storable-text.ts';
import { hasControlBesidesLineBreaks } from '../../security/control-characters.ts';
import type { WebhookDeps } from '../deps.ts';
import { pageOffset } from '../../db/page-depth.ts';
import { assertEventName } from '../patterns.ts';
import { createSchemaCompiler } from './schema-check.ts';
import {
  countEventTypes,
  insertEventType,
  selectEventType,
  selectEventTypeForUpdate,
  selectEventTypes,
  updateEventTypeRow,
  type EventTypeRow,
} from './store.ts';
import { forgetEventType } from './validation.ts';
import { inTransaction } from '../../db/transaction.ts';
import { authorize, type Actor } from '../../access/actor.ts';

export interface EventType {
  name: string;
  description: string | null;
  /** JSON Schema (draft 2020-12) of the events' `data`; null: any data. */
  schema: Record<string, unknown> | boolean | null;
  examples: unknown[];
  deprecated: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export const toEventType = (row: EventTypeRow): EventType => ({
  name: row.name,
  description: row.description,
  schema: row.schema,
  examples: row.examples,
  deprecated: row.deprecated,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const invalid = (field: string, reason: string) =>
  unprocessable(`invalid event type ${field}: ${reason}`, {
    code: 'APP_WEBHOOK_EVENT_TYPE_INVALID',
    data: { field, reason },
  });

/** AppError 404 `APP_WEBHOOK_EVENT_TYPE_NOT_FOUND`. */
export const eventTypeNotFound = (name: unknown) =>
  notFound(`event type ${typeof name === 'string' ? clip(name) : describeValue(name)} is not in the catalog`, {
    code: 'APP_WEBHOOK_EVENT_TYPE_NOT_FOUND',
    data: { name },
  });

export const MAX_EXAMPLES = 20;

function checkDescription(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw invalid('description', 'must be a string');
  if (value.length > 2000) throw invalid('description', 'must be at most 2000 characters');
  if (hasControlBesidesLineBreaks(value) || !isStoredAsGiven(value))
    throw invalid(
      'description',
      'must not contain control characters (tab and line breaks are fine) or lone surrogates',
    );
  return value;
}

function checkExamples(value: unknown, validate?: (data: unknown) => boolean): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid('examples', 'must be an array of example data');
  if (value.length > MAX_EXAMPLES) throw invalid('examples', `must hold at most ${MAX_EXAMPLES} examples`);
  value.forEach((example, index) => {
    if (validate && !validate(example)) throw invalid('examples', `example ${index} does not match the schema`);
  });
  return value;
}

const compiler = createSchemaCompiler();

/** The schema (checked: 422 `APP_WEBHOOK_EVENT_SCHEMA_INVALID`) and its validator; null: none. */
function checkSchema(value: unknown): { schema: EventTypeRow['schema']; validate?: (data: unknown) => boolean } {
  if (value === undefined || value === null) return { schema: null };
  const validate = compiler.compile(value);
  return { schema: value as EventTypeRow['schema'], validate: (data) => validate(data) as boolean };
}

export interface EventTypeInput {
  name?: unknown;
  description?: unknown;
  schema?: unknown;
  examples?: unknown;
  deprecated?: unknown;
}

/**
 * Adds a type. Throws 422 `APP_WEBHOOK_EVENT_INVALID` (name), `APP_WEBHOOK_EVENT_TYPE_INVALID`,
 * `APP_WEBHOOK_EVENT_SCHEMA_INVALID`; 409 `APP_WEBHOOK_EVENT_TYPE_EXISTS`; first 403
 * `APP_FORBIDDEN` to a role that may not change the catalog (it is the whole service's).
 */
export async function createEventType(
  deps: Pick<WebhookDeps, 'sql' | 'log'>,
  actor: Actor,
  input: EventTypeInput,
): Promise<EventType> {
  authorize(actor, 'eventTypes.create');
  const name = assertEventName(input?.name);
  const { schema, validate } = checkSchema(input.schema);
  if (input.deprecated !== undefined && typeof input.deprecated !== 'boolean')
    throw invalid('deprecated', 'must be true or false');
  const fields = {
    name,
    description: checkDescription(input.description),
    schema,
    examples: checkExamples(input.examples, validate),
    deprecated: input.deprecated === true,
  };
  // in a transaction: a request answered 503 by its timeout never commits it (shared/db/transaction.ts)
  const row = await inTransaction(deps.sql, (tx) => insertEventType(tx, fields));
  if (!row)
    throw conflict(`event type ${name} is already in the catalog; change it with an update`, {
      code: 'APP_WEBHOOK_EVENT_TYPE_EXISTS',
      data: { name },
    });
  deps.log.info({ eventType: name }, 'event type added');
  return toEventType(row);
}

/** The type named `name`. Throws 403 `APP_FORBIDDEN` first to a grant that may not read the catalog, 404. */
export async function showEventType(deps: Pick<WebhookDeps, 'sql'>, actor: Actor, name: unknown): Promise<EventType> {
  authorize(actor, 'webhooks.read'); // the catalog is every tenant's: no scope narrows it
  if (typeof name !== 'string' || name.length > 255) throw eventTypeNotFound(name);
  const row = await selectEventType(deps.sql, name);
  if (!row) throw eventTypeNotFound(name);
  return toEventType(row);
}

/**
 * A page of types in name order (deprecated ones too with `includeDeprecated`), with the total;
 * every type without `perPage`. Throws 403 `APP_FORBIDDEN` first to a grant that may not read
 * the catalog; a page past the paging bound is 422 `APP_PAGE_TOO_DEEP` (shared/db/page-depth.ts).
 */
export async function listEventTypes(
  deps: Pick<WebhookDeps, 'sql' | 'config'>,
  actor: Actor,
  query: { includeDeprecated?: boolean; page?: number; perPage?: number } = {},
): Promise<{ records: EventType[]; total: number }> {
  authorize(actor, 'webhooks.read'); // the catalog is every tenant's: no scope narrows it
  const includeDeprecated = query.includeDeprecated !== false;
  const window =
    query.perPage === undefined
      ? {}
      : {
          limit: query.perPage,
          offset: pageOffset(query.page ?? 1, query.perPage, deps.config.api.maxPageOffset, []),
        };
  const [rows, total] = await Promise.all([
    selectEventTypes(deps.sql, { includeDeprecated, ...window }),
    countEventTypes(deps.sql, { includeDeprecated }),
  ]);
  return { records: rows.map(toEventType), total };
}

/** Changes the given fields of a type (`schema: null` removes the schema). Throws as create does, and 404. */
export async function updateEventType(
  deps: Pick<WebhookDeps, 'sql' | 'log'>,
  actor: Actor,
  name: unknown,
  input: EventTypeInput,
): Promise<EventType> {
  authorize(actor, 'eventTypes.update');
  if (typeof name !== 'string' || name.length > 255) throw eventTypeNotFound(name);
  // read, checked and written under the row's lock: examples are checked against the schema that
  // is stored when they are, whatever another admin changes at the same time
  const { current, row } = await inTransaction(deps.sql, async (tx) => {
    const locked = await selectEventTypeForUpdate(tx, name);
    if (!locked) throw eventTypeNotFound(name);
    const current = toEventType(locked);
    const given = (input ?? {}) as EventTypeInput;
    const unknown = Object.keys(given).filter(
      (key) => !['description', 'schema', 'examples', 'deprecated'].includes(key),
    );
    if (unknown.length > 0)
      throw invalid(
        unknown[0],
        'is not a field of an event type that can change (description, schema, examples, deprecated)',
      );
    if (Object.keys(given).length === 0) throw invalid('update', 'names no field to change');
    const checked = given.schema !== undefined ? checkSchema(given.schema) : checkSchema(current.schema);
    if (given.deprecated !== undefined && typeof given.deprecated !== 'boolean')
      throw invalid('deprecated', 'must be true or false');
    const row = await updateEventTypeRow(tx, current.name, {
      ...(given.description !== undefined ? { description: checkDescription(given.description) } : {}),
      ...(given.schema !== undefined ? { schema: checked.schema } : {}),
      ...(given.examples !== undefined || given.schema !== undefined
        ? { examples: checkExamples(given.examples ?? current.examples, checked.validate) }
        : {}),
      ...(given.deprecated !== undefined ? { deprecated: given.deprecated as boolean } : {}),
    });
    return { current, row };
  });
  if (!row) throw eventTypeNotFound(name);
  forgetEventType(deps.sql, current.name);
  deps.log.info({ eventType: current.name }, 'event type changed');
  return toEventType(row);
}
