/**
 * The MySQL / MariaDB endpoint store (`adapter: mysql`, `url`: `mysql://user:pass@host:3306/db`):
 * the endpoint table in a database of the deployer's, through a mysql2 pool of its own.
 *
 * Needs MariaDB 10.2+ or MySQL 8.0.17+: text columns use a binary collation without padding
 * (`utf8mb4_nopad_bin` on MariaDB, `utf8mb4_0900_bin` on MySQL), so ids, owners and patterns
 * compare as the exact strings they are: `a`, `A` and `a ` are three tenants (a padding
 * collation such as `utf8mb4_bin` would make `'a' = 'a '` true). Times are DATETIME(3) holding
 * UTC: the pool's `timezone: 'Z'` makes the driver write and read them as UTC whatever the zone
 * of the process or the server, to the millisecond. Events, headers and secrets are JSON columns
 * (MariaDB's JSON is LONGTEXT with a validity check; the driver hands back either text or parsed
 * values, both are read). `list` filters, pages and counts in SQL: `patterns` is one
 * `JSON_CONTAINS` per pattern, OR'ed (JSON_OVERLAPS would leave out MariaDB before 10.9), and
 * the owner is compared NULL-safely (`<=>`), since `owner = NULL` is never true.
 */
import mysql, { type Pool, type ResultSetHeader, type RowDataPacket } from 'mysql2/promise';
import type {
  EndpointStore,
  StoreContext,
  StoredEndpoint,
  StoredEndpointPage,
  StoredEndpointQuery,
  SubscriberEndpoint,
} from './types.ts';
import { pageOf } from './paging.ts';
import { COLUMNS, parsedJson, type ReadTextRow, recordOfTextRow, textRowOf } from './sql-row.ts';

/** The collations that compare strings byte for byte without padding, in the order they are preferred. */
const EXACT_COLLATIONS = ['utf8mb4_nopad_bin', 'utf8mb4_0900_bin'] as const;
/** The SQL mode of the store's sessions (see openStore). */
const SQL_MODE = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION';
/** The server's error number of a duplicate key. */
const ER_DUP_ENTRY = 1062;
/** The server's error number of a column added twice (two processes installing at once). */
const ER_DUP_FIELDNAME = 1060;

/** A MySQL identifier in backticks (a backtick inside doubled); refuses names the server would refuse anyway. */
export function quoteIdentifier(name: string): string {
  if (name.length === 0 || name.length > 64 || name.includes('\0') || name.endsWith(' '))
    throw new Error(
      `mysql store: ${JSON.stringify(name)} is not a usable table name (1 to 64 characters, no NUL, no trailing space)`,
    );
  return '`' + name.replaceAll('`', '``') + '`';
}

const SELECT_COLUMNS = COLUMNS.map((column) => '`' + column + '`').join(', ');

/** A row as mysql2 answers it: MySQL's JSON columns come back parsed, MariaDB's (LONGTEXT) may come back as text. */
interface EndpointRow extends RowDataPacket, ReadTextRow {}

/** The values of `COLUMNS`, in their order, for one record. */
function toValues(record: StoredEndpoint): unknown[] {
  const row = textRowOf(record);
  return COLUMNS.map((column) => row[column]);
}

/** The WHERE clause of a listing's conditions, and its values. */
function conditions(query: StoredEndpointQuery): { where: string; values: unknown[] } {
  const parts: string[] = [];
  const values: unknown[] = [];
  if (query.owner !== undefined) {
    parts.push('`owner` <=> ?');
    values.push(query.owner);
  }
  if (query.enabled !== undefined) parts.push(query.enabled ? '`disabled_at` IS NULL' : '`disabled_at` IS NOT NULL');
  if (query.patterns !== undefined) {
    if (query.patterns.length === 0) parts.push('FALSE');
    else {
      parts.push(`(${query.patterns.map(() => 'JSON_CONTAINS(`events`, ?)').join(' OR ')})`);
      for (const pattern of query.patterns) values.push(JSON.stringify(pattern));
    }
  }
  return { where: parts.length > 0 ? `WHERE ${parts.join(' AND ')}` : '', values };
}

export async function openStore(context: StoreContext): Promise<EndpointStore> {
  if (!context.options.url) throw new Error(`store ${context.name}: the mysql adapter needs a url (mysql://…)`);
  const table = quoteIdentifier(context.table);
  const pool: Pool = mysql.createPool({
    uri: context.options.url,
    // DATETIME has no zone: the driver writes and reads it as UTC, so a Date comes back as it went in
    timezone: 'Z',
    charset: 'UTF8MB4_GENERAL_CI',
    dateStrings: false,
    supportBigNumbers: true,
    enableKeepAlive: true,
  });

  // Every connection starts in a known SQL mode, whatever the server's default: strict, so that a
  // value too long for its column is refused instead of cut (a store gives back what it was
  // given or nothing), and without engine substitution, so that the table is InnoDB or not made.
  pool.pool.on('connection', (connection) => {
    connection.query(`SET SESSION sql_mode = '${SQL_MODE}'`, (error) => {
      // the query this connection was opened for fails with it, instead of running in another mode
      if (error) connection.destroy();
    });
  });

  async function rows(sql: string, values: unknown[] = []): Promise<EndpointRow[]> {
    const [result] = await pool.query<EndpointRow[]>(sql, values);
    return result;
  }

  async function changeCount(sql: string, values: unknown[]): Promise<number> {
    const [result] = await pool.query<ResultSetHeader>(sql, values);
    // matched rows, not changed ones: mysql2 sets the FOUND_ROWS flag by default
    return result.affectedRows;
  }

  /** The first collation of EXACT_COLLATIONS the server has. */
  async function exactCollation(): Promise<string> {
    const [found] = await pool.query<RowDataPacket[]>(
      'SELECT `COLLATION_NAME` AS `name` FROM `information_schema`.`COLLATIONS` WHERE `COLLATION_NAME` IN (?)',
      [EXACT_COLLATIONS],
    );
    const names = new Set(found.map((row) => String(row.name)));
    const collation = EXACT_COLLATIONS.find((name) => names.has(name));
    if (!collation)
      throw new Error(
        `store ${context.name}: the server has none of ${EXACT_COLLATIONS.join(', ')}; the mysql adapter needs MariaDB 10.2+ or MySQL 8.0.17+`,
      );
    return collation;
  }

  return {
    name: context.name,
    adapter: 'mysql',

    async install() {
      const collation = await exactCollation();
      // one statement with its indexes: concurrent installs meet on the server's metadata lock
      await pool.query(
        `CREATE TABLE IF NOT EXISTS ${table} (
          \`id\` VARCHAR(255) NOT NULL,
          \`url\` TEXT NOT NULL,
          \`events\` JSON NOT NULL,
          \`filter\` JSON NULL,
          \`owner\` VARCHAR(255) NULL,
          \`description\` TEXT NULL,
          \`headers\` JSON NOT NULL,
          \`secrets\` JSON NOT NULL,
          \`signing\` VARCHAR(32) NOT NULL,
          \`rate_limit\` INT NULL,
          \`ordering\` VARCHAR(16) NOT NULL,
          \`disabled_at\` DATETIME(3) NULL,
          \`disabled_reason\` TEXT NULL,
          \`enabled_at\` DATETIME(3) NULL,
          \`created_at\` DATETIME(3) NOT NULL,
          \`updated_at\` DATETIME(3) NOT NULL,
          \`version\` INT NOT NULL,
          PRIMARY KEY (\`id\`),
          KEY \`owner_disabled_at\` (\`owner\`, \`disabled_at\`),
          KEY \`created_at_id\` (\`created_at\`, \`id\`)
        ) ENGINE=InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE ${collation}`,
      );
      // a table made before subscription filters gets their column (MySQL has no ADD COLUMN IF NOT EXISTS)
      const [found] = await pool.query<RowDataPacket[]>(
        'SELECT 1 FROM `information_schema`.`COLUMNS` WHERE `TABLE_SCHEMA` = DATABASE() AND `TABLE_NAME` = ? AND `COLUMN_NAME` = ?',
        [context.table, 'filter'],
      );
      if (found.length === 0) {
        await pool.query(`ALTER TABLE ${table} ADD COLUMN \`filter\` JSON NULL AFTER \`events\``).catch((error) => {
          if ((error as { errno?: number }).errno !== ER_DUP_FIELDNAME) throw error;
        });
      }
    },

    async ping() {
      await pool.query(`SELECT 1 FROM ${table} LIMIT 1`);
    },

    async close() {
      await pool.end();
    },

    async get(id) {
      const [row] = await rows(`SELECT ${SELECT_COLUMNS} FROM ${table} WHERE \`id\` = ?`, [id]);
      return row ? recordOfTextRow(row) : null;
    },

    async getMany(ids) {
      if (ids.length === 0) return [];
      const found = await rows(`SELECT ${SELECT_COLUMNS} FROM ${table} WHERE \`id\` IN (?)`, [[...new Set(ids)]]);
      return found.map(recordOfTextRow);
    },

    async list(query): Promise<StoredEndpointPage> {
      const { where, values } = conditions(query);
      const select = `SELECT ${SELECT_COLUMNS} FROM ${table} ${where} ORDER BY \`created_at\`, \`id\``;
      if (query.perPage === undefined) {
        const records = (await rows(select, values)).map(recordOfTextRow);
        return pageOf(records, records.length, query);
      }
      const offset = ((query.page ?? 1) - 1) * query.perPage;
      const [records, [count]] = await Promise.all([
        rows(`${select} LIMIT ? OFFSET ?`, [...values, query.perPage, offset]),
        pool.query<RowDataPacket[]>(`SELECT COUNT(*) AS \`total\` FROM ${table} ${where}`, values).then(([r]) => r),
      ]);
      return pageOf(records.map(recordOfTextRow), Number(count.total), query);
    },

    async subscribers(owner): Promise<SubscriberEndpoint[]> {
      const found = await rows(
        `SELECT \`id\`, \`events\`, \`filter\` FROM ${table} WHERE \`owner\` <=> ? AND \`disabled_at\` IS NULL ORDER BY \`id\``,
        [owner],
      );
      return found.map((row) => ({
        id: row.id,
        events: parsedJson<string[]>(row.events),
        filter: row.filter === null ? null : parsedJson<Record<string, unknown>>(row.filter),
      }));
    },

    async insert(endpoint) {
      try {
        await pool.query(`INSERT INTO ${table} (${SELECT_COLUMNS}) VALUES (?)`, [toValues(endpoint)]);
      } catch (error) {
        if ((error as { errno?: number }).errno === ER_DUP_ENTRY)
          throw new Error(`mysql store: endpoint ${endpoint.id} already exists`, { cause: error });
        throw error;
      }
    },

    async update(endpoint, expectedVersion) {
      const [, ...values] = toValues(endpoint);
      const assignments = COLUMNS.slice(1)
        .map((column) => '`' + column + '` = ?')
        .join(', ');
      const matched = await changeCount(`UPDATE ${table} SET ${assignments} WHERE \`id\` = ? AND \`version\` = ?`, [
        ...values,
        endpoint.id,
        expectedVersion,
      ]);
      return matched === 1;
    },

    async delete(id) {
      return (await changeCount(`DELETE FROM ${table} WHERE \`id\` = ?`, [id])) === 1;
    },
  };
}
