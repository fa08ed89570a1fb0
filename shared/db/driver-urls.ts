/**
 * One `databaseUrl`, two drivers: `postgres` runs the service's queries, `pg` graphile-worker's
 * queue and the migrations. Each reads the URL's `sslmode` its own way (`pg` checks the server's
 * certificate for `require`, `postgres` does not; only `pg` knows `no-verify`), so a database that
 * needs TLS with a certificate of its own (Heroku Postgres, and most hosted PostgreSQL) was
 * reachable by one and refused by the other. Here both are given the URL so that they read
 * `sslmode` as libpq does: `disable`, `allow` and `prefer` connect without TLS (the drivers cannot
 * fall back from TLS), `require` encrypts without checking the certificate (as `no-verify`),
 * `verify-ca` checks it against `sslrootcert`, `verify-full` checks it and the host name.
 * `db.sslMode` (`PGSSLMODE`) gives the mode to a URL that names none.
 */
export interface DriverUrls {
  /** For `postgres`. */
  postgres: string;
  /** For `pg` (graphile-worker, migrations). */
  pg: string;
}

export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'] as const;
export type SslMode = (typeof SSL_MODES)[number];

export function driverUrls(databaseUrl: string, sslMode: SslMode | null = null): DriverUrls {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return { postgres: databaseUrl, pg: databaseUrl }; // refused by the configuration's own rule
  }
  if (sslMode !== null && !url.searchParams.has('sslmode')) url.searchParams.set('sslmode', sslMode);
  const mode = url.searchParams.get('sslmode');
  if (mode === null) return { postgres: url.toString(), pg: url.toString() };
  const forPostgres = new URL(url);
  const forPg = new URL(url);
  // `postgres` encrypts without checking for `require`; it takes `no-verify` for a mode that checks
  if (mode === 'no-verify') forPostgres.searchParams.set('sslmode', 'require');
  // neither driver can try TLS and fall back without it, as libpq does for these
  if (mode === 'allow' || mode === 'prefer') {
    forPostgres.searchParams.set('sslmode', 'disable');
    forPg.searchParams.set('sslmode', 'disable');
  }
  // `pg` reads `sslmode` as libpq does only when asked (and `postgres` would send the parameter to the server)
  else if (mode !== 'no-verify' && !forPg.searchParams.has('uselibpqcompat'))
    forPg.searchParams.set('uselibpqcompat', 'true');
  return { postgres: forPostgres.toString(), pg: forPg.toString() };
}
