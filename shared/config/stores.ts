/**
 * The rules of `stores` and `webhooks.store` that span fields or keys, judged once every layer
 * is laid (shared/config/resolve.ts): what each adapter requires and what it has no use for, and
 * that the endpoint table's store is one of `stores`. A mistake here stops the start with a
 * message naming the setting, rather than surfacing at the first request that needs the store.
 */
import { ADAPTERS, type AdapterName } from '../webhooks/endpoint-stores/types.ts';

type Need = 'required' | 'optional' | 'refused';
type StoreField = 'url' | 'path' | 'dialect';

/** What each adapter takes besides `adapter`. */
export const ADAPTER_OPTIONS: Readonly<Record<AdapterName, Readonly<Record<StoreField, Need>>>> = {
  // without a url: the service's own database and pool
  postgresql: { url: 'optional', path: 'refused', dialect: 'refused' },
  mysql: { url: 'required', path: 'refused', dialect: 'refused' },
  mssql: { url: 'required', path: 'refused', dialect: 'refused' },
  mongoose: { url: 'required', path: 'refused', dialect: 'refused' },
  drizzle: { url: 'required', path: 'refused', dialect: 'required' },
  disk: { url: 'refused', path: 'required', dialect: 'refused' },
};

const FIELDS: readonly StoreField[] = ['url', 'path', 'dialect'];

/**
 * The URL schemes each adapter's driver connects with (drizzle's by its dialect). A url of another
 * kind (a PostgreSQL url on a mysql store, `http://` on a mongoose one) is refused at start, naming
 * the setting, instead of failing at the first request with the driver's words. SQL Server also
 * takes an ADO.NET connection string, which has no scheme.
 */
const POSTGRESQL_SCHEMES = ['postgres', 'postgresql'];
const MYSQL_SCHEMES = ['mysql', 'mariadb'];
const URL_SCHEMES: Readonly<Record<string, readonly string[]>> = {
  postgresql: POSTGRESQL_SCHEMES,
  mysql: MYSQL_SCHEMES,
  mssql: ['mssql', 'sqlserver'],
  mongoose: ['mongodb', 'mongodb+srv'],
  'drizzle/postgresql': POSTGRESQL_SCHEMES,
  'drizzle/mysql': MYSQL_SCHEMES,
};

/** The problem of a url whose scheme the store's driver does not connect with, if any. */
function urlSchemeProblem(at: string, entry: Record<string, unknown>): string | undefined {
  const { adapter, url, dialect } = entry;
  if (typeof url !== 'string' || url.trim() === '') return undefined;
  const schemes = URL_SCHEMES[adapter === 'drizzle' ? `drizzle/${String(dialect)}` : String(adapter)];
  if (schemes === undefined) return undefined;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url.trim())?.[1]?.toLowerCase();
  // an ADO.NET string (`Server=…;Database=…`) names no scheme
  if (adapter === 'mssql' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url.trim())) return undefined;
  if (scheme !== undefined && schemes.includes(scheme)) return undefined;
  const forms = schemes.map((name) => `${name}://`).join(' or ');
  const kind = adapter === 'drizzle' ? `adapter drizzle with dialect ${String(dialect)}` : `adapter ${String(adapter)}`;
  return `${at}.url must be a ${forms} url for ${kind}${scheme ? ` (got ${scheme}://…)` : ''}`;
}

/** The problems of the merged `stores` map: each store's adapter, and the options it requires or cannot use. */
export function checkStores(value: unknown): string[] {
  const problems: string[] = [];
  for (const [name, entry] of Object.entries(value as Record<string, Record<string, unknown>>)) {
    const at = `stores.${name}`;
    const adapter = entry.adapter as AdapterName | undefined;
    if (adapter === undefined) {
      problems.push(`${at}.adapter is required (one of ${ADAPTERS.join(', ')})`);
      continue;
    }
    const needs = ADAPTER_OPTIONS[adapter];
    for (const field of FIELDS) {
      const given = entry[field];
      if (typeof given === 'string' && given.trim() === '') {
        problems.push(`${at}.${field} may not be empty`);
      } else if (needs[field] === 'required' && given === undefined) {
        problems.push(
          field === 'dialect'
            ? `${at}.dialect must be postgresql or mysql for adapter ${adapter}`
            : `${at}.${field} is required for adapter ${adapter}`,
        );
      } else if (needs[field] === 'refused' && given !== undefined) {
        problems.push(`${at}.${field} does not apply to adapter ${adapter}`);
      }
    }
    const scheme = urlSchemeProblem(at, entry);
    if (scheme !== undefined) problems.push(scheme);
  }
  return problems;
}

/** The problem of a `webhooks.store` that names no store of `stores`. */
export function checkStoreName(value: unknown, config: Readonly<Record<string, unknown>>): string[] {
  const stores = (config.stores ?? {}) as Record<string, unknown>;
  if (typeof value === 'string' && Object.hasOwn(stores, value)) return [];
  const names = Object.keys(stores);
  return [
    `webhooks.store names ${JSON.stringify(value)}, which is not in stores (${names.length ? names.join(', ') : 'none is configured'})`,
  ];
}
