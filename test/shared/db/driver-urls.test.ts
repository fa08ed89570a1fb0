/**
 * Both drivers read one `sslmode` as libpq does (shared/db/driver-urls.ts): the URL each is given
 * is read back by the driver itself (`pg`'s connection-string parser, `postgres`'s options), so
 * a database needing TLS with a certificate of its own is reached by the service's queries, the
 * job queue and the migrations alike.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'pg-connection-string';
import postgres from 'postgres';
import { driverUrls } from '../../../shared/db/driver-urls.ts';

const BASE = 'postgres://user:secret@db.example.com:5432/app';

/** What each driver makes of its URL: false (no TLS), or whether it checks the certificate. */
function tlsOf(databaseUrl: string, sslMode: Parameters<typeof driverUrls>[1] = null) {
  const urls = driverUrls(databaseUrl, sslMode);
  const pgSsl = parse(urls.pg).ssl as boolean | { rejectUnauthorized?: boolean } | undefined;
  const client = postgres(urls.postgres, { max: 1 }); // connects lazily: nothing is dialled
  const postgresSsl = (client.options as { ssl: unknown }).ssl;
  void client.end();
  return {
    pg:
      pgSsl === undefined || pgSsl === false
        ? false
        : typeof pgSsl === 'object' && pgSsl.rejectUnauthorized === false
          ? 'unchecked'
          : 'checked',
    postgres:
      postgresSsl === false || postgresSsl === 'disable'
        ? false
        : postgresSsl === 'require' || postgresSsl === 'prefer' || postgresSsl === 'allow'
          ? 'unchecked'
          : 'checked',
  };
}

describe('one sslmode for both drivers', () => {
  it('require and no-verify encrypt without checking the certificate, in both', () => {
    assert.deepEqual(tlsOf(`${BASE}?sslmode=require`), { pg: 'unchecked', postgres: 'unchecked' });
    assert.deepEqual(tlsOf(`${BASE}?sslmode=no-verify`), { pg: 'unchecked', postgres: 'unchecked' });
  });

  it('verify-full checks the certificate in both', () => {
    assert.deepEqual(tlsOf(`${BASE}?sslmode=verify-full`), { pg: 'checked', postgres: 'checked' });
  });

  it('no sslmode, disable, allow and prefer connect without TLS in both (neither driver can fall back)', () => {
    for (const url of [BASE, `${BASE}?sslmode=disable`, `${BASE}?sslmode=allow`, `${BASE}?sslmode=prefer`])
      assert.deepEqual(tlsOf(url), { pg: false, postgres: false }, url);
  });

  it("db.sslMode (PGSSLMODE) gives a mode to a URL that names none; the URL's own wins", () => {
    assert.deepEqual(tlsOf(BASE, 'require'), { pg: 'unchecked', postgres: 'unchecked' });
    assert.deepEqual(tlsOf(`${BASE}?sslmode=disable`, 'require'), { pg: false, postgres: false });
  });

  it('the rest of the URL is kept, credentials and other parameters included', () => {
    const { postgres: forPostgres, pg } = driverUrls(`${BASE}?application_name=x&sslmode=require`);
    for (const url of [forPostgres, pg]) {
      const parsed = new URL(url);
      assert.equal(
        `${parsed.username}:${parsed.password}@${parsed.host}${parsed.pathname}`,
        'user:secret@db.example.com:5432/app',
      );
      assert.equal(parsed.searchParams.get('application_name'), 'x');
    }
    assert.equal(
      new URL(forPostgres).searchParams.has('uselibpqcompat'),
      false,
      'never sent to the server by postgres',
    );
  });
});
