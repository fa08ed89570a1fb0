import { AppError } from './app-error.ts';

/**
 * PostgreSQL error classes the service answers as client errors, one table
 * (https://www.postgresql.org/docs/current/errcodes-appendix.html).
 */
export const PG_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  '23505': { status: 409, code: 'APP_CONFLICT', message: 'a record with the same unique value already exists' },
  '23001': { status: 409, code: 'APP_REFERENCE_IN_USE', message: 'the record is still referenced by others' },
  '23503': { status: 422, code: 'APP_REFERENCE_INVALID', message: 'a referenced record does not exist' },
  '23502': { status: 422, code: 'APP_VALUE_REQUIRED', message: 'a required value is missing' },
  '22P02': { status: 400, code: 'APP_VALUE_INVALID', message: 'a value has the wrong form' },
  '22021': {
    status: 400,
    code: 'APP_VALUE_INVALID',
    message: 'a text value holds a character that cannot be stored (such as NUL)',
  },
  '22P05': {
    status: 400,
    code: 'APP_VALUE_INVALID',
    message: 'a text value holds a character that cannot be stored (such as NUL)',
  },
  '22007': { status: 400, code: 'APP_VALUE_INVALID', message: 'a date or time has the wrong form' },
  '22008': { status: 422, code: 'APP_VALUE_OUT_OF_RANGE', message: 'a date or time is out of range' },
  '54000': { status: 422, code: 'APP_VALUE_TOO_LONG', message: 'a value is too large to store or index' },
  '22001': { status: 422, code: 'APP_VALUE_TOO_LONG', message: 'a value is too long' },
  '22003': { status: 422, code: 'APP_VALUE_OUT_OF_RANGE', message: 'a number is out of range' },
  '23514': { status: 422, code: 'APP_CHECK_FAILED', message: 'a value breaks a rule of the table' },
};

/**
 * A foreign-key violation (23503) raised by deleting (or re-keying) a row others still reference:
 * PostgreSQL words it "update or delete on table …", where a write naming a missing record is
 * "insert or update on table …". It is the condition a `restrict` key reports as 23001, so it is
 * answered the same (409 `APP_REFERENCE_IN_USE`), whichever `on delete` the table declares.
 */
const STILL_REFERENCED = /^update or delete on table /;

/**
 * SQLSTATEs of a statement naming a table (42P01), a schema (3F000) or a function (42883) the
 * database does not have. When it is one of the service's own (`app_…` tables and functions, such
 * as the prune's `app_delivery_partitions_ensure`, the `graphile_worker` queue) the database is
 * behind the code, its migrations not (all) applied: 503 `APP_DATABASE_NOT_MIGRATED`, saying what
 * to run (`/readyz` says the same; the CLI exits 4). Any other name stays an unexpected error (a
 * 500 that shows nothing of the SQL).
 */
const NOT_MIGRATED = new Set(['42P01', '3F000', '42883']);
const SERVICE_RELATION = /^(?:(?:relation|schema) "|function )(?:app_|graphile_worker(?:"|\.))/;

/** The AppError for a PostgreSQL error of a known class, else undefined. */
export function pgErrorToAppError(error: unknown): AppError | undefined {
  const pg = error as { code?: unknown; name?: unknown; column_name?: string; constraint_name?: string };
  if (typeof pg?.code !== 'string' || pg.name !== 'PostgresError') return undefined;
  const reason = String((error as { message?: unknown }).message);
  if (NOT_MIGRATED.has(pg.code) && SERVICE_RELATION.test(reason)) {
    return new AppError(503, `the database is not migrated (${reason}): run \`app migrate\``, {
      code: 'APP_DATABASE_NOT_MIGRATED',
      data: { reason },
      expose: true,
      cause: error,
    });
  }
  const known = PG_ERRORS[pg.code === '23503' && STILL_REFERENCED.test(reason) ? '23001' : pg.code];
  if (!known) return undefined;
  const data: Record<string, unknown> = {};
  if (pg.column_name) data.field = pg.column_name;
  if (pg.constraint_name) data.constraint = pg.constraint_name;
  return new AppError(known.status, known.message, { code: known.code, data, cause: error });
}
