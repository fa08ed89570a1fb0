/** What the audit reads from the database (shared/security/audit.ts). */
import type { Sql } from '../db/connect.ts';
import type { AuditFacts } from './audit.ts';

/** Signing secrets stored as `plain:` that still sign (not expired). */
export async function countUnencryptedSecrets(sql: Sql): Promise<number> {
  const [{ count }] = await sql<{ count: number }[]>`
    select count(*)::int as count
      from app_webhook_secrets
     where sealed like 'plain:%' and (expires_at is null or expires_at > now())`;
  return count;
}

/** The database facts of the audit. */
export async function databaseFacts(sql: Sql): Promise<AuditFacts> {
  return { unencryptedSecrets: await countUnencryptedSecrets(sql) };
}
