/**
 * PostgreSQL errors as the service answers them (shared/errors/pg-errors.ts): a table, schema or
 * function of the service's that the database lacks is a database behind the code (503
 * `APP_DATABASE_NOT_MIGRATED`, run `app migrate`), never a 500 that leaves the caller guessing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pgErrorToAppError } from '../../../shared/errors/pg-errors.ts';

const postgresError = (code: string, message: string) =>
  Object.assign(new Error(message), { name: 'PostgresError', code });

describe('pgErrorToAppError', () => {
  it('a missing table, schema or function of the service is 503 APP_DATABASE_NOT_MIGRATED, naming it and saying to run app migrate', () => {
    for (const [code, message] of [
      ['42P01', 'relation "app_api_tokens" does not exist'],
      ['42P01', 'relation "graphile_worker._private_jobs" does not exist'],
      ['3F000', 'schema "graphile_worker" does not exist'],
      ['42883', 'function app_delivery_partitions_ensure(timestamp with time zone) does not exist'],
      ['42883', 'function graphile_worker.add_job(unknown, json) does not exist'],
    ]) {
      const mapped = pgErrorToAppError(postgresError(code, message));
      assert.equal(mapped?.status, 503);
      assert.equal(mapped?.code, 'APP_DATABASE_NOT_MIGRATED');
      assert.equal(mapped?.expose, true);
      assert.equal(mapped?.message, `the database is not migrated (${message}): run \`app migrate\``);
      assert.deepEqual(mapped?.data, { reason: message });
    }
  });

  it("a table or function that is not the service's stays unmapped: a 500 that shows nothing of the SQL", () => {
    assert.equal(pgErrorToAppError(postgresError('42P01', 'relation "no_such_table_xyz" does not exist')), undefined);
    assert.equal(pgErrorToAppError(postgresError('42P01', 'relation "posts_app_x" does not exist')), undefined);
    assert.equal(pgErrorToAppError(postgresError('42883', 'function my_app_fn(integer) does not exist')), undefined);
    assert.equal(pgErrorToAppError(postgresError('42883', 'operator does not exist: app_x = integer')), undefined);
  });

  it('a foreign-key violation raised by a delete is 409 APP_REFERENCE_IN_USE, as with a restrict key; one raised by a write naming no record stays 422 APP_REFERENCE_INVALID', () => {
    const naming = pgErrorToAppError(
      postgresError(
        '23503',
        'insert or update on table "posts" violates foreign key constraint "posts_author_id_fkey"',
      ),
    );
    assert.deepEqual(
      [naming?.status, naming?.code, naming?.message],
      [422, 'APP_REFERENCE_INVALID', 'a referenced record does not exist'],
    );
    const deleting = pgErrorToAppError(
      postgresError(
        '23503',
        'update or delete on table "authors" violates foreign key constraint "posts_author_id_fkey" on table "posts"',
      ),
    );
    assert.deepEqual(
      [deleting?.status, deleting?.code, deleting?.message],
      [409, 'APP_REFERENCE_IN_USE', 'the record is still referenced by others'],
    );
  });

  it('keeps its other classes, and leaves what is not a PostgreSQL error alone', () => {
    assert.equal(pgErrorToAppError(postgresError('23505', 'duplicate key'))?.code, 'APP_CONFLICT');
    assert.equal(pgErrorToAppError(postgresError('XX000', 'internal')), undefined);
    assert.equal(pgErrorToAppError(new Error('relation "x" does not exist')), undefined);
  });
});
