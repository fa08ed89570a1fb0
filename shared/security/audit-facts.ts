/** What the audit reads from the database and the endpoint store (shared/security/audit.ts). */
import type { Sql } from '../db/connect.ts';
import type { Config } from '../config/index.ts';
import type { AuditFacts } from './audit.ts';
import { endpointStoreOf } from '../webhooks/endpoints/store.ts';
import { activeSecrets } from '../webhooks/endpoints/secrets.ts';
import type { EndpointStore } from '../webhooks/endpoint-stores/types.ts';

type FactsDeps = { sql: Sql; config: Pick<Config, 'webhooks'>; endpoints?: EndpointStore };

/** Signing secrets stored as `plain:` that still sign (not expired). */
export async function countUnencryptedSecrets(deps: FactsDeps): Promise<number> {
  const { records } = await endpointStoreOf(deps).list({});
  const now = new Date();
  return records.reduce(
    (count, record) => count + activeSecrets(record, now).filter((secret) => secret.sealed.startsWith('plain:')).length,
    0,
  );
}

/** The database facts of the audit. */
export async function databaseFacts(deps: FactsDeps): Promise<AuditFacts> {
  return { unencryptedSecrets: await countUnencryptedSecrets(deps) };
}
