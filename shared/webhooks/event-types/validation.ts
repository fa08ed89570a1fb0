/**
 * The catalog at emit: an event whose type has a schema must carry data that
 * validates (422 `APP_WEBHOOK_EVENT_DATA_INVALID` with the validator's errors in `data.errors`);
 * with `webhooks.strictEventTypes`, an emit of a type the catalog lacks and a subscription to a
 * pattern matching none of its types are refused (422 `APP_WEBHOOK_EVENT_TYPE_UNKNOWN`).
 *
 * Each process keeps what it read of the catalog for ten seconds (like the endpoint lookup), per
 * database pool; a change made by this process is seen at once, one made by another within ten
 * seconds.
 */
import type { ValidateFunction } from 'ajv';
import { unprocessable } from '../../errors/app-error.ts';
import type { Queryable } from '../../db/connect.ts';
import type { WebhookDeps } from '../deps.ts';
import { matchesEvent } from '../patterns.ts';
import { createSchemaCompiler, validatorErrors } from './schema-check.ts';
import { selectEventType, selectEventTypeNames } from './store.ts';

export const CATALOG_CACHE_MS = 10_000;

interface Known {
  at: number;
  /** undefined: the type is not in the catalog; null: it is, without a schema. */
  validate: ValidateFunction | null | undefined;
}

const caches = new WeakMap<object, Map<string, Known>>();
const compiler = createSchemaCompiler();

function cacheOf(sql: Queryable): Map<string, Known> {
  let cache = caches.get(sql);
  if (!cache) {
    cache = new Map();
    caches.set(sql, cache);
  }
  return cache;
}

/** Drops what this process knew of `name` (after a change). */
export function forgetEventType(sql: Queryable, name: string): void {
  caches.get(sql)?.delete(name);
}

async function known(sql: Queryable, name: string): Promise<Known> {
  const cache = cacheOf(sql);
  const hit = cache.get(name);
  if (hit && Date.now() - hit.at < CATALOG_CACHE_MS) return hit;
  const row = await selectEventType(sql, name);
  const entry: Known = {
    at: Date.now(),
    validate: row === undefined ? undefined : row.schema === null ? null : compiler.compile(row.schema),
  };
  cache.set(name, entry);
  if (cache.size > 10_000) cache.delete(cache.keys().next().value as string);
  return entry;
}

/**
 * Checks an emit's `data` against its type's schema, and (strict, unless `options.strict` is
 * false: one endpoint's `webhooks:send`, test events) that the type is known.
 */
export async function checkEventData(
  deps: Pick<WebhookDeps, 'sql' | 'config'>,
  type: string,
  data: unknown,
  options: { strict?: boolean } = {},
): Promise<void> {
  const entry = await known(deps.sql, type);
  if (entry.validate === undefined) {
    // the service's own operational events (`app.…`) are never held to the catalog
    if (deps.config.webhooks.strictEventTypes && options.strict !== false && !type.startsWith('app.')) {
      throw unprocessable(
        `event type ${type} is not in the catalog (webhooks.strictEventTypes is on); add it first: app event-types:add ${type}`,
        {
          code: 'APP_WEBHOOK_EVENT_TYPE_UNKNOWN',
          data: { field: 'type', type },
        },
      );
    }
    return;
  }
  if (entry.validate !== null && !entry.validate(data)) {
    const errors = validatorErrors(entry.validate.errors);
    // the first reason in the message itself, for the faces that show only the message (the CLI)
    const first = errors[0];
    const reason = first === undefined ? '' : `: ${first.instancePath || 'the data'} ${first.message}`;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more in data.errors)` : '';
    throw unprocessable(`the data of event ${type} does not match the type's schema${reason}${more}`, {
      code: 'APP_WEBHOOK_EVENT_DATA_INVALID',
      data: { field: 'data', type, errors },
    });
  }
}

/** With `webhooks.strictEventTypes`: each pattern must match a type of the catalog. */
export async function checkSubscriptions(
  deps: Pick<WebhookDeps, 'sql' | 'config'>,
  patterns: readonly string[],
): Promise<void> {
  if (!deps.config.webhooks.strictEventTypes) return;
  const names = await selectEventTypeNames(deps.sql);
  const unmatched = patterns.find(
    (pattern) => !pattern.startsWith('app.') && !names.some((name) => matchesEvent([pattern], name)),
  );
  if (unmatched !== undefined) {
    throw unprocessable(
      `the pattern ${unmatched} matches no event type of the catalog (webhooks.strictEventTypes is on)`,
      {
        code: 'APP_WEBHOOK_EVENT_TYPE_UNKNOWN',
        data: { field: 'events', pattern: unmatched },
      },
    );
  }
}
