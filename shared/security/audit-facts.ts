/** What the audit reads from the database and the endpoint store (shared/security/audit.ts). */
import type { Sql } from '../db/connect.ts';
import type { Config } from '../config/index.ts';
import type { AuditFacts } from './audit.ts';
import { endpointStoreOf } from '../webhooks/endpoints/store.ts';
import { activeSecrets, secretBoxFor } from '../webhooks/endpoints/secrets.ts';
import { holdsCredentialsInClear, holdsCredentialsSealed } from '../webhooks/destinations/credentials.ts';
import { type BoxSecrets, PLAIN_PREFIX, type SealedUnder, sealedUnder } from '../webhooks/secret-box.ts';
import { headerValuesSealed, holdsHeaderValuesInClear } from '../webhooks/endpoints/header-box.ts';
import type { EndpointStore, StoredEndpoint } from '../webhooks/endpoint-stores/types.ts';
import { countEnabledUsersSharingEmail } from '../accounts/user-store.ts';

type FactsDeps = { sql: Sql; config: Pick<Config, 'webhooks'> & BoxSecrets; endpoints?: EndpointStore };

/** Every endpoint record, whatever its state. */
const recordsOf = async (deps: FactsDeps): Promise<StoredEndpoint[]> => (await endpointStoreOf(deps).list({})).records;

const unencryptedSecretsOf = (records: readonly StoredEndpoint[], now: Date): number =>
  records.reduce(
    (count, record) =>
      count + activeSecrets(record, now).filter((secret) => secret.sealed.startsWith(PLAIN_PREFIX)).length,
    0,
  );

/** Endpoints (disabled ones too: the credentials are at rest all the same) whose url holds credentials in clear. */
const urlCredentialsInClearOf = (records: readonly StoredEndpoint[]): number =>
  records.filter((record) => holdsCredentialsInClear(record.url)).length;

/** Endpoints (disabled ones too) with a header value stored unencrypted. */
const headerValuesInClearOf = (records: readonly StoredEndpoint[]): number =>
  records.filter((record) => holdsHeaderValuesInClear(record.headers)).length;

/**
 * Values sealed under one of `config.previousSecrets` (`under: 'previous'`; none when there are no
 * previous secrets), or under a secret neither `config.secret` nor a previous one is
 * (`'unopenable'`: a database restored under another `APP_SECRET`): signing secrets that still
 * sign, header values and url credentials (of disabled endpoints too), each counted.
 */
function sealedOf(records: readonly StoredEndpoint[], config: BoxSecrets, now: Date, under: SealedUnder): number {
  if (under === 'previous' && (config.previousSecrets ?? []).length === 0) return 0;
  const box = secretBoxFor(config);
  return records.reduce(
    (count, record) =>
      count +
      activeSecrets(record, now).filter((secret) => sealedUnder(box, secret.sealed, under)).length +
      headerValuesSealed(config, record.headers, under) +
      (holdsCredentialsSealed(config, record.url, under) ? 1 : 0),
    0,
  );
}

/** Values still sealed under a previous application secret (`previousSecrets`). Counted only. */
export async function countSealedUnderPrevious(deps: FactsDeps): Promise<number> {
  return sealedOf(await recordsOf(deps), deps.config, new Date(), 'previous');
}

/** Signing secrets stored as `plain:` that still sign (not expired). */
export async function countUnencryptedSecrets(deps: FactsDeps): Promise<number> {
  return unencryptedSecretsOf(await recordsOf(deps), new Date());
}

/** Endpoints with a header value (receivers put credentials there) stored unencrypted. Counted only. */
export async function countHeaderValuesInClear(deps: FactsDeps): Promise<number> {
  return headerValuesInClearOf(await recordsOf(deps));
}

/**
 * Endpoints whose url's credentials (a broker's `user:pass@`) are stored unencrypted: sealed
 * while `APP_SECRET` was unset, or never sealed. Counted only: the credentials are not read out.
 */
export async function countUrlCredentialsInClear(deps: FactsDeps): Promise<number> {
  return urlCredentialsInClearOf(await recordsOf(deps));
}

/** The database facts of the audit (the endpoint records are read once, and the users' email keys). */
export async function databaseFacts(deps: FactsDeps): Promise<AuditFacts> {
  const records = await recordsOf(deps);
  return {
    unencryptedSecrets: unencryptedSecretsOf(records, new Date()),
    urlCredentialsInClear: urlCredentialsInClearOf(records),
    headerValuesInClear: headerValuesInClearOf(records),
    sealedUnderPrevious: sealedOf(records, deps.config, new Date(), 'previous'),
    sealedUnopenable: sealedOf(records, deps.config, new Date(), 'unopenable'),
    usersSharingEmail: await countEnabledUsersSharingEmail(deps.sql),
  };
}
