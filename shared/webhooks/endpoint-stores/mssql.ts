/**
 * The endpoint store on Microsoft SQL Server (`adapter: 'mssql'`), through the `mssql` package and
 * its tedious driver. SQL Server 2016 or later (compatibility level 130+: `OPENJSON`, `ISJSON`),
 * Azure SQL included.
 *
 * `url` takes either form:
 * - a URL, `mssql://user:password@host:1433/database?encrypt=false` (`sqlserver://` too); the
 *   user name and password percent-encoded; query parameters `encrypt` (default true, as tedious),
 *   `trustServerCertificate` (default false), `instanceName`, `domain` (NTLM) and
 *   `connectTimeout` / `requestTimeout` in milliseconds. The `mssql` package itself reads no URL,
 *   so this module turns it into the package's config object.
 * - an ADO.NET connection string, `Server=host,1433;Database=db;User Id=sa;Password=…;Encrypt=false`,
 *   read by the package's own parser.
 * Either way the pool holds at most 4 connections unless the string sets `Max Pool Size`.
 *
 * Stored shape: one row per endpoint; `events`, `headers` and `secrets` are JSON in NVARCHAR(MAX)
 * (the secrets' dates inside as ISO-8601 strings), dates DATETIME2(3) in UTC, `id` and `owner` in a
 * binary collation so that equality and order are exact (the server's default collation usually
 * ignores case). Every value reaches the server as a typed parameter; the table's name, the only
 * configured text spliced into statements, is quoted as a [delimited identifier].
 */
import mssql from 'mssql';
import type { EndpointStore, StoreContext, StoredEndpoint, StoredEndpointQuery, SubscriberEndpoint } from './types.ts';
import { listCountedFirst } from './paging.ts';
import { COLUMNS, type Column, recordOfTextRow, type TextRow, textRowOf } from './sql-row.ts';

/** Exact comparison and order by code unit, whatever the database's default collation. */
const BINARY = 'Latin1_General_100_BIN2';
/** Width of `id` and `owner` (the core allows at most 255 characters of owner, 100 of id). */
const KEY_LENGTH = 255;

/**
 * Owner equality, exact: SQL Server's `=` ignores trailing spaces whatever the collation (`'a' = 'a '`),
 * so the byte lengths must match too; the first test still seeks the index on (owner, disabled_at).
 */
const SAME_OWNER = '[owner] = @owner AND DATALENGTH([owner]) = DATALENGTH(@owner)';

/** "There is already an object named … in the database": another process created the table first. */
const ALREADY_EXISTS = 2714;
/** "Column names in each table must be unique": another process added the column first. */
const DUPLICATE_COLUMN = 2705;

/** `[name]`, with every `]` inside doubled (the only character a delimited identifier escapes). */
export const quoteIdentifier = (name: string): string => `[${name.replaceAll(']', ']]')}]`;

const TRUE_WORDS = new Set(['true', 'yes', '1']);
const FALSE_WORDS = new Set(['false', 'no', '0']);

function flag(url: URL, name: string): boolean | undefined {
  const value = url.searchParams.get(name);
  if (value === null) return undefined;
  if (TRUE_WORDS.has(value.toLowerCase())) return true;
  if (FALSE_WORDS.has(value.toLowerCase())) return false;
  throw new Error(`mssql url: ${name} must be true or false, not ${JSON.stringify(value)}`);
}

function milliseconds(url: URL, name: string): number | undefined {
  const value = url.searchParams.get(name);
  if (value === null) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0)
    throw new Error(`mssql url: ${name} must be a whole number of milliseconds`);
  return number;
}

const KNOWN_PARAMETERS = new Set([
  'encrypt',
  'trustServerCertificate',
  'instanceName',
  'domain',
  'connectTimeout',
  'requestTimeout',
]);

/** The `mssql` package's config for a `mssql://` (or `sqlserver://`) URL; an unknown parameter is refused. */
export function configFromUrl(text: string): mssql.config {
  const url = new URL(text);
  if (url.protocol !== 'mssql:' && url.protocol !== 'sqlserver:')
    throw new Error(`mssql url: expected mssql://…, not ${url.protocol}//…`);
  for (const name of url.searchParams.keys())
    if (!KNOWN_PARAMETERS.has(name)) throw new Error(`mssql url: unknown parameter ${name}`);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const instanceName = url.searchParams.get('instanceName') ?? undefined;
  const domain = url.searchParams.get('domain') ?? undefined;
  return {
    server: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    // a named instance is found through the browser service (UDP 1434), unless a port is given
    port: url.port ? Number(url.port) : instanceName ? undefined : 1433,
    user: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    domain,
    database: database || undefined,
    connectionTimeout: milliseconds(url, 'connectTimeout'),
    requestTimeout: milliseconds(url, 'requestTimeout'),
    pool: { max: POOL_MAX },
    options: {
      encrypt: flag(url, 'encrypt') ?? true,
      trustServerCertificate: flag(url, 'trustServerCertificate') ?? false,
      instanceName,
      // dates are sent and read as UTC (tedious' default, stated because the columns rely on it)
      useUTC: true,
    },
  };
}

/** The pool size when the URL or connection string sets none (`Max Pool Size`). */
const POOL_MAX = 4;

/** The `mssql` package's config for either form of `url`. */
export function configFor(url: string): mssql.config {
  if (/^(mssql|sqlserver):\/\//i.test(url)) return configFromUrl(url);
  const config = mssql.ConnectionPool.parseConnectionString(url);
  config.pool.max ??= POOL_MAX;
  config.options.useUTC ??= true;
  return config;
}

/** A connection pool (not connected yet) for either form of `url`. */
export const poolFor = (url: string): mssql.ConnectionPool => new mssql.ConnectionPool(configFor(url));

const SELECT_COLUMNS = COLUMNS.map(quoteIdentifier).join(', ');

const key = () => mssql.NVarChar(KEY_LENGTH);
const long = () => mssql.NVarChar(mssql.MAX);
const moment = () => mssql.DateTime2(3);

/** Each column's parameter type (the JSON columns travel as text). */
const COLUMN_TYPES = {
  id: key,
  url: long,
  events: long,
  filter: long,
  owner: key,
  description: long,
  headers: long,
  secrets: long,
  signing: () => mssql.NVarChar(32),
  rate_limit: () => mssql.Int(),
  ordering: () => mssql.NVarChar(16),
  disabled_at: moment,
  disabled_reason: long,
  enabled_at: moment,
  created_at: moment,
  updated_at: moment,
  version: () => mssql.Int(),
} satisfies Record<Column, () => mssql.ISqlType>;

/** Binds every column of `endpoint` as a parameter named after the column. */
function bindEndpoint(request: mssql.Request, endpoint: StoredEndpoint): mssql.Request {
  const row = textRowOf(endpoint);
  for (const column of COLUMNS) request.input(column, COLUMN_TYPES[column](), row[column]);
  return request;
}

/** The WHERE clause of a listing, its parameters bound on `request`. */
function whereOf(request: mssql.Request, table: string, query: StoredEndpointQuery): string {
  const conditions: string[] = [];
  if (query.owner === null) conditions.push('[owner] IS NULL');
  else if (query.owner !== undefined) {
    request.input('owner', key(), query.owner);
    conditions.push(SAME_OWNER);
  }
  if (query.enabled === true) conditions.push('[disabled_at] IS NULL');
  else if (query.enabled === false) conditions.push('[disabled_at] IS NOT NULL');
  if (query.patterns !== undefined) {
    if (query.patterns.length === 0) conditions.push('1 = 0');
    else {
      // the patterns travel as one JSON array: one parameter however many there are
      request.input('patterns', long(), JSON.stringify(query.patterns));
      conditions.push(
        `EXISTS (SELECT 1 FROM OPENJSON(${table}.[events]) AS e JOIN OPENJSON(@patterns) AS p` +
          ` ON e.[value] COLLATE ${BINARY} = p.[value] COLLATE ${BINARY} AND DATALENGTH(e.[value]) = DATALENGTH(p.[value]))`,
      );
    }
  }
  return conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
}

/** Opens the store; the pool connects on first use (and again after a failed attempt). */
export async function openStore(context: StoreContext): Promise<EndpointStore> {
  const { url } = context.options;
  if (!url) throw new Error(`stores.${context.name}: the mssql adapter needs a url`);
  const pool = poolFor(url);
  // an idle connection's error is reported on the pool; the next request finds out on its own
  pool.on('error', () => {});
  const table = quoteIdentifier(context.table);

  let connecting: Promise<mssql.ConnectionPool> | undefined;
  const request = async (): Promise<mssql.Request> => {
    connecting ??= pool.connect().catch((error: unknown) => {
      connecting = undefined;
      throw error;
    });
    return (await connecting).request();
  };

  return {
    name: context.name,
    adapter: 'mssql',

    async install() {
      const create = (await request()).input('table', long(), table);
      try {
        await create.query(`IF OBJECT_ID(@table, N'U') IS NULL
CREATE TABLE ${table} (
  [id] NVARCHAR(${KEY_LENGTH}) COLLATE ${BINARY} NOT NULL PRIMARY KEY,
  [url] NVARCHAR(MAX) NOT NULL,
  [events] NVARCHAR(MAX) NOT NULL CHECK (ISJSON([events]) = 1),
  [filter] NVARCHAR(MAX) NULL CHECK (ISJSON([filter]) = 1),
  [owner] NVARCHAR(${KEY_LENGTH}) COLLATE ${BINARY} NULL,
  [description] NVARCHAR(MAX) NULL,
  [headers] NVARCHAR(MAX) NOT NULL CHECK (ISJSON([headers]) = 1),
  [secrets] NVARCHAR(MAX) NOT NULL CHECK (ISJSON([secrets]) = 1),
  [signing] NVARCHAR(32) NOT NULL,
  [rate_limit] INT NULL,
  [ordering] NVARCHAR(16) NOT NULL,
  [disabled_at] DATETIME2(3) NULL,
  [disabled_reason] NVARCHAR(MAX) NULL,
  [enabled_at] DATETIME2(3) NULL,
  [created_at] DATETIME2(3) NOT NULL,
  [updated_at] DATETIME2(3) NOT NULL,
  [version] INT NOT NULL,
  INDEX [owner_disabled_at] NONCLUSTERED ([owner], [disabled_at])
)`);
      } catch (error) {
        // the table and its index are made by one statement: whoever made it made both
        if ((error as { number?: number }).number !== ALREADY_EXISTS) throw error;
      }
      // a table made before subscription filters gets their column
      try {
        await (await request())
          .input('table', long(), table)
          .query(
            `IF COL_LENGTH(@table, N'filter') IS NULL ALTER TABLE ${table} ADD [filter] NVARCHAR(MAX) NULL CHECK (ISJSON([filter]) = 1)`,
          );
      } catch (error) {
        // another process added it first
        if ((error as { number?: number }).number !== DUPLICATE_COLUMN) throw error;
      }
    },

    async ping() {
      await (await request()).query('SELECT 1 AS [ok]');
    },

    async close() {
      await pool.close();
    },

    async get(id) {
      const result = await (await request())
        .input('id', key(), id)
        .query<TextRow>(`SELECT ${SELECT_COLUMNS} FROM ${table} WHERE [id] = @id`);
      return result.recordset.length ? recordOfTextRow(result.recordset[0]) : null;
    },

    async getMany(ids) {
      if (ids.length === 0) return [];
      // one JSON parameter rather than one per id (a request takes at most 2,100 parameters)
      const result = await (await request())
        .input('ids', long(), JSON.stringify(ids))
        .query<TextRow>(
          `SELECT ${SELECT_COLUMNS} FROM ${table} WHERE [id] IN (SELECT [value] COLLATE ${BINARY} FROM OPENJSON(@ids))`,
        );
      return result.recordset.map(recordOfTextRow);
    },

    async list(query) {
      return listCountedFirst(
        query,
        async () => {
          const counting = await request();
          const counted = await counting.query<{ total: number }>(
            `SELECT COUNT(*) AS [total] FROM ${table} ${whereOf(counting, table, query)}`,
          );
          return counted.recordset[0].total;
        },
        async ({ offset, limit }) => {
          const selecting = await request();
          let text = `SELECT ${SELECT_COLUMNS} FROM ${table} ${whereOf(selecting, table, query)} ORDER BY [created_at], [id]`;
          if (limit !== undefined) {
            selecting.input('offset', mssql.Int(), offset).input('limit', mssql.Int(), limit);
            text += ' OFFSET @offset ROWS FETCH NEXT @limit ROWS ONLY';
          }
          return (await selecting.query<TextRow>(text)).recordset.map(recordOfTextRow);
        },
      );
    },

    async subscribers(owner) {
      const selecting = await request();
      let condition = '[owner] IS NULL';
      if (owner !== null) {
        selecting.input('owner', key(), owner);
        condition = SAME_OWNER;
      }
      const result = await selecting.query<{ id: string; events: string; filter: string | null }>(
        `SELECT [id], [events], [filter] FROM ${table} WHERE ${condition} AND [disabled_at] IS NULL ORDER BY [id]`,
      );
      return result.recordset.map(
        (row): SubscriberEndpoint => ({
          id: row.id,
          events: JSON.parse(row.events),
          filter: row.filter === null ? null : JSON.parse(row.filter),
        }),
      );
    },

    async insert(endpoint) {
      await bindEndpoint(await request(), endpoint).query(
        `INSERT INTO ${table} (${SELECT_COLUMNS}) VALUES (${COLUMNS.map((column) => `@${column}`).join(', ')})`,
      );
    },

    async update(endpoint, expectedVersion) {
      const assignments = COLUMNS.filter((column) => column !== 'id')
        .map((column) => `${quoteIdentifier(column)} = @${column}`)
        .join(', ');
      // OUTPUT rather than the rows-affected count: it holds under SET NOCOUNT ON too
      const result = await bindEndpoint(await request(), endpoint)
        .input('expected', mssql.Int(), expectedVersion)
        .query<{ id: string }>(
          `UPDATE ${table} SET ${assignments} OUTPUT inserted.[id] WHERE [id] = @id AND [version] = @expected`,
        );
      return result.recordset.length > 0;
    },

    async delete(id) {
      const result = await (await request())
        .input('id', key(), id)
        .query<{ id: string }>(`DELETE FROM ${table} OUTPUT deleted.[id] WHERE [id] = @id`);
      return result.recordset.length > 0;
    },
  };
}
