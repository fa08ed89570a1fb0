/**
 * The rule of `databaseUrl`, judged with the other rules once every layer is laid
 * (shared/config/resolve.ts): the PostgreSQL driver must be able to read it, or every process
 * would fail at its first query with the driver's bare "Invalid URL". Its scheme must be
 * `postgres:` or `postgresql:`: the driver reads any other (`http://db/app`) as a PostgreSQL
 * address anyway, and the mistake (another service's URL, say) showed only as a database out of
 * reach. The message names the setting and its variable, and never repeats the value, which
 * holds the password.
 */

const UNREADABLE =
  'databaseUrl (DATABASE_URL) is not a URL the PostgreSQL driver can read, such as postgres://user:password@host:5432/database';

/** The problem of a `databaseUrl` the driver cannot read (none for an unset or empty one). */
export function checkDatabaseUrl(value: unknown): string[] {
  if (typeof value !== 'string' || value === '') return [];
  if (!/^postgres(?:ql)?:\/\//i.test(value)) return [UNREADABLE];
  try {
    // read as the driver (postgres) reads it: the URL with the first of its comma-separated hosts
    const hosts = value.slice(value.indexOf('://') + 3).split(/[?/]/)[0];
    const host = decodeURIComponent(hosts.slice(hosts.indexOf('@') + 1));
    new URL(value.replace(host, host.split(',')[0]));
    return [];
  } catch {
    return [UNREADABLE];
  }
}
