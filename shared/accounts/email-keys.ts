/**
 * Every user's email key as the application computes it (user-fields.ts `emailKey`), written
 * by `app migrate` after the SQL migrations. Migration 038 fills the key of the rows before it
 * with what SQL gives (exact with ICU, ASCII letters only without), and the release before writes
 * rows through the same SQL during a deploy: this pass writes the application's own key to every
 * row whose email is not plain ASCII, and to rows without one.
 *
 * Users whose emails have one key are one account: the one created first holds the key; each
 * other keeps its row without key (it still signs in with its own spelling: user-store.ts
 * `selectUserByEmail`), and while it is enabled every run logs a warning naming both, for an
 * operator to disable the one that is not its owner's.
 */
import type { Sql } from '../db/connect.ts';
import { transaction } from '../db/transaction.ts';
import type { Logger } from '../log/logger.ts';
import { emailKey } from './user-fields.ts';
import {
  type EmailKeyRow,
  hasEmailKeyColumn,
  selectEmailKeyHolder,
  selectEmailKeysToCheck,
  updateEmailKey,
} from './user-store.ts';

/** What a run did: users whose key it wrote, and users left without one (another user holds theirs). */
export interface EmailKeyResult {
  keyed: number;
  unkeyed: { userId: string; sameAccountAs: string; enabled: boolean }[];
}

const UNIQUE_VIOLATION = '23505';

/** Whether `a` was created before `b` (ties by id, as the migration's backfill orders them). */
const before = (a: EmailKeyRow, b: EmailKeyRow) =>
  a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Gives `row` its key unless a user created before it holds it; a user created after it gives
 * the key up. Answers the user left without key and the one holding it, or undefined.
 */
async function keyOne(
  sql: Sql,
  row: EmailKeyRow,
  key: string,
): Promise<{ without: EmailKeyRow; holder: EmailKeyRow } | undefined> {
  return transaction(sql, async (tx) => {
    const holder = await selectEmailKeyHolder(tx, key);
    if (holder && before(holder, row) < 0) {
      if (row.email_key !== null) await updateEmailKey(tx, row.id, null);
      return { without: row, holder };
    }
    if (holder) await updateEmailKey(tx, holder.id, null);
    await updateEmailKey(tx, row.id, key);
    return holder && { without: holder, holder: row };
  });
}

/**
 * Writes the application's email key to the users that need it (none when the table has no key
 * column: a database migrated from another folder), under the caller's migration lock. A user
 * the web process creates meanwhile with a key this run is writing makes that row's write fail:
 * it is tried again, and then finds the new user holding the key.
 */
export async function keyUserEmails(deps: { sql: Sql; log: Logger }): Promise<EmailKeyResult> {
  const { sql, log } = deps;
  const result: EmailKeyResult = { keyed: 0, unkeyed: [] };
  if (!(await hasEmailKeyColumn(sql))) return result;
  for (const row of await selectEmailKeysToCheck(sql)) {
    const key = emailKey(row.email);
    if (row.email_key === key) continue;
    const outcome = await keyOne(sql, row, key).catch((error: unknown) => {
      if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
      return keyOne(sql, row, key);
    });
    if (outcome === undefined || outcome.without.id !== row.id) result.keyed += 1;
    if (outcome === undefined) continue;
    const enabled = outcome.without.disabled_at === null;
    result.unkeyed.push({ userId: outcome.without.id, sameAccountAs: outcome.holder.id, enabled });
  }
  for (const { userId, sameAccountAs } of result.unkeyed.filter((user) => user.enabled))
    log.warn(
      { userId, sameAccountAs },
      'two users have one email in another case or spelling: the later one signs in only with its own spelling; disable the one that is not its owner’s (app users:disable)',
    );
  return result;
}
