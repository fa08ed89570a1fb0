import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveConfig } from '../../../shared/config/index.ts';
import { auditConfig, summaryLine } from '../../../shared/security/audit.ts';
import {
  countHeaderValuesInClear,
  countSealedUnderPrevious,
  countUnencryptedSecrets,
  countUrlCredentialsInClear,
} from '../../../shared/security/audit-facts.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { runAppInProcess } from '../../helpers/cli.ts';
import { freePort } from '../../helpers/ports.ts';

const SECRET = 'a production application secret of more than 32 characters';
/** A production configuration with nothing to report, changed by `env`, without the variables `drop` names. */
const production = (env: Record<string, string> = {}, drop: readonly string[] = []) => {
  const all: Record<string, string> = {
    NODE_ENV: 'production',
    APP_SECRET: SECRET,
    DATABASE_URL: 'postgres://db/app',
    APP_PUBLIC_URL: 'https://hooks.example.com',
    APP_MAIL__URL: 'smtp://mail.example.com:587',
    ...env,
  };
  for (const name of drop) delete all[name];
  return resolveConfig({ env: all }).config;
};
const ids = (findings: { id: string }[]) => findings.map((finding) => finding.id);

/** Each misconfiguration the audit knows, with the severity it gives it. */
const CASES: {
  id: string;
  severity: string;
  env?: Record<string, string>;
  drop?: string[];
  facts?: Record<string, unknown>;
}[] = [
  { id: 'webhooks.private-addresses-allowed', severity: 'high', env: { APP_WEBHOOKS__ALLOW_PRIVATE: 'true' } },
  { id: 'webhooks.http-allowed', severity: 'high', env: { APP_WEBHOOKS__ALLOW_HTTP: 'true' } },
  { id: 'secret.missing', severity: 'high', env: { APP_SECRET: '' } },
  { id: 'secret.short', severity: 'high', env: { APP_SECRET: 'short but set' } },
  { id: 'secrets.stored-unencrypted', severity: 'high', facts: { unencryptedSecrets: 3 } },
  { id: 'url-credentials.stored-unencrypted', severity: 'high', facts: { urlCredentialsInClear: 2 } },
  { id: 'header-values.stored-unencrypted', severity: 'high', facts: { headerValuesInClear: 1 } },
  { id: 'graphql.introspection-enabled', severity: 'medium', env: { APP_GRAPHQL__INTROSPECTION: 'true' } },
  { id: 'rate-limit.disabled', severity: 'medium', env: { APP_RATE_LIMIT: 'false' } },
  { id: 'rate-limit.auth-disabled', severity: 'medium', env: { APP_RATE_LIMIT__AUTH: 'false' } },
  {
    id: 'cors.any-origin-with-credentials',
    severity: 'high',
    env: { APP_CORS__ORIGINS: '*', APP_CORS__CREDENTIALS: 'true' },
  },
  { id: 'trust-proxy.forwarded-ignored', severity: 'info', facts: { forwardedForSeen: true } },
  { id: 'auth.lockout-disabled', severity: 'medium', env: { APP_AUTH__LOCKOUT: 'false' } },
  { id: 'public-url.missing', severity: 'medium', drop: ['APP_PUBLIC_URL'] },
  { id: 'mail.missing', severity: 'low', drop: ['APP_MAIL__URL'] },
  { id: 'secret.previous-configured', severity: 'low', env: { APP_PREVIOUS_SECRETS: 'the application secret before' } },
  { id: 'secrets.unopenable', severity: 'high', facts: { sealedUnopenable: 2 } },
];

describe('security audit rules', () => {
  it('a production configuration with the defaults and a long secret has no finding', () => {
    assert.deepEqual(auditConfig(production()), []);
    assert.equal(summaryLine([]), 'security audit: no findings');
  });

  for (const rule of CASES) {
    it(`${rule.id} is reported as ${rule.severity} in production, with its setting and a remedy`, () => {
      const findings = auditConfig(production(rule.env, rule.drop), rule.facts);
      assert.deepEqual(ids(findings), [rule.id]);
      assert.equal(findings[0].severity, rule.severity);
      assert.ok(findings[0].setting && findings[0].remedy && findings[0].message);
    });
  }

  it('http, private addresses, no secret and introspection are ordinary in development and not reported there', () => {
    const config = resolveConfig({
      env: { NODE_ENV: 'development', APP_WEBHOOKS__ALLOW_HTTP: 'true', APP_WEBHOOKS__ALLOW_PRIVATE: 'true' },
    }).config;
    assert.deepEqual(ids(auditConfig(config)), ['graphql.graphiql-enabled']);
  });

  it('values stored in clear are ordinary in development without a secret; with APP_SECRET set they are reported there too', () => {
    const inClear = { unencryptedSecrets: 4, urlCredentialsInClear: 1, headerValuesInClear: 1 };
    const development = (env: Record<string, string>) =>
      resolveConfig({ env: { NODE_ENV: 'development', ...env } }).config;
    assert.deepEqual(ids(auditConfig(development({}), inClear)), ['graphql.graphiql-enabled']);
    assert.deepEqual(ids(auditConfig(development({ APP_SECRET: SECRET }), inClear)), [
      'secrets.stored-unencrypted',
      'url-credentials.stored-unencrypted',
      'header-values.stored-unencrypted',
      'graphql.graphiql-enabled',
    ]);
    assert.deepEqual(ids(auditConfig(production({ APP_ALLOW_UNENCRYPTED_SECRETS: 'true' }, ['APP_SECRET']), inClear)), [
      'secret.missing',
      'secrets.stored-unencrypted',
      'url-credentials.stored-unencrypted',
      'header-values.stored-unencrypted',
    ]);
  });

  it('the remedy for values stored in clear asks to set APP_SECRET only while it is not set, then to run app secrets:seal', () => {
    const inClear = { unencryptedSecrets: 4, urlCredentialsInClear: 1, headerValuesInClear: 1 };
    const remedies = (config: ReturnType<typeof production>) =>
      auditConfig(config, inClear)
        .filter((finding) => finding.id.endsWith('.stored-unencrypted'))
        .map((finding) => finding.remedy);
    assert.deepEqual(remedies(production()), [
      'run `app secrets:seal` (it encrypts them; the signing secrets stay the same)',
      'run `app secrets:seal` (it encrypts them; the credentials stay the same)',
      'run `app secrets:seal` (it encrypts them; the values sent stay the same)',
    ]);
    const unset = remedies(production({ APP_ALLOW_UNENCRYPTED_SECRETS: 'true' }, ['APP_SECRET']));
    assert.equal(unset.length, 3);
    for (const remedy of unset)
      assert.match(remedy, /^set APP_SECRET, then run `app secrets:seal` \(it encrypts them; /);
  });

  it('findings come most severe first, and the summary line counts them', () => {
    const findings = auditConfig(production({ APP_RATE_LIMIT: 'false', APP_WEBHOOKS__ALLOW_PRIVATE: 'true' }), {
      forwardedForSeen: true,
    });
    assert.deepEqual(
      findings.map((finding) => finding.severity),
      ['high', 'medium', 'info'],
    );
    assert.match(
      summaryLine(findings),
      /^security audit: 1 high, 1 medium, 1 info \(webhooks\.private-addresses-allowed, rate-limit\.disabled, trust-proxy\.forwarded-ignored\)/,
    );
  });
});

describe('app audit', () => {
  const app = (args: string[], env: Record<string, string>) =>
    runAppInProcess(args, {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      NODE_ENV: 'production',
      APP_PUBLIC_URL: 'https://hooks.example.com',
      APP_MAIL__URL: 'smtp://mail.example.com',
      ...env,
    });
  const run = (env: Record<string, string>) => app(['audit', '--json'], env);
  /** Registers `url` as the service does, sealing with `secret` (null: as while APP_SECRET was unset). */
  const register = (db: TestDatabase, secret: string | null, url: string) =>
    registerEndpoint({ config: db.configWith({ secret }), sql: db.sql, log: db.log }, OPERATOR, { url, events: ['*'] });
  const storedUrl = async (db: TestDatabase, id: string) =>
    (await db.sql<{ url: string }[]>`select url from app_webhooks where id = ${id}`)[0].url;
  /** `app audit` with the secret set over `db`: exit 0, no finding. */
  const assertNoFindings = async (db: TestDatabase) => {
    const clean = await run({ DATABASE_URL: db.url, APP_SECRET: SECRET });
    assert.equal(clean.code, 0, clean.stderr);
    assert.deepEqual(JSON.parse(clean.stdout).findings, []);
  };
  const BROKER_USER = 'publisher-4d2e';
  const BROKER_PASSWORD = 'clear-pw-7c1b';
  const BROKER_URL = `amqps://${BROKER_USER}:${BROKER_PASSWORD}@127.0.0.1:5671/prod?exchange=events`;

  it('counts the signing secrets stored unencrypted that can still sign', async () => {
    const db = await createTestDatabase();
    await db.sql`insert into app_webhooks (id, url, events) values ('ep_audit', 'https://receiver.example/hook', '{*}')`;
    const secret = (sealed: string, expiresAt: string | null) => ({
      sealed,
      createdAt: new Date().toISOString(),
      expiresAt,
    });
    await db.sql`update app_webhooks set secrets = ${db.sql.json([
      secret('plain:whsec_AAAA', null),
      secret('plain:whsec_BBBB', new Date(Date.now() - 3_600_000).toISOString()),
      secret('enc:v1:abcd:x:y:z', null),
    ])} where id = 'ep_audit'`;
    assert.equal(await countUnencryptedSecrets(db), 1);

    const found = await run({ DATABASE_URL: db.url, APP_SECRET: SECRET });
    assert.equal(found.code, 1, found.stderr);
    const report = JSON.parse(found.stdout);
    assert.equal(report.database, 'checked');
    // the value sealed under a key no configured secret gives is reported on its own
    assert.deepEqual(ids(report.findings), ['secrets.unopenable', 'secrets.stored-unencrypted']);

    await db.sql`update app_webhooks set secrets = '[]'::jsonb where id = 'ep_audit'`;
    await assertNoFindings(db);
  });

  it('counts the broker url credentials stored unencrypted (registered without APP_SECRET), never printing them, until secrets:seal', async () => {
    const db = await createTestDatabase();
    const endpoint = await register(db, null, BROKER_URL);
    assert.match(await storedUrl(db, endpoint.id), /^amqps:\/\/sealed\.plain%3A/, 'stored as plain: behind sealed.');
    assert.equal(await countUrlCredentialsInClear(db), 1);

    // the secret set since: the rows made before it stay in clear
    const found = await run({ DATABASE_URL: db.url, APP_SECRET: SECRET });
    assert.equal(found.code, 1, found.stderr);
    const report = JSON.parse(found.stdout);
    assert.deepEqual(ids(report.findings), ['secrets.stored-unencrypted', 'url-credentials.stored-unencrypted']);
    const finding = report.findings[1];
    assert.equal(finding.severity, 'high');
    assert.equal(finding.setting, 'endpoint store: url credentials');
    assert.match(finding.message, /^1 endpoint url\(s\) hold credentials/);
    assert.match(finding.remedy, /app secrets:seal/);
    const text = await app(['audit'], { DATABASE_URL: db.url, APP_SECRET: SECRET });
    assert.equal(text.code, 1, text.stderr);
    assert.match(text.stdout, /HIGH {3}url-credentials\.stored-unencrypted \(endpoint store: url credentials\)/);
    for (const output of [found.stdout, found.stderr, text.stdout, text.stderr]) {
      for (const part of [BROKER_USER, BROKER_PASSWORD]) assert.ok(!output.includes(part), `${part} is printed`);
    }

    // the url's credentials alone are a high finding: exit 1
    await db.sql`update app_webhooks set secrets = '[]'::jsonb where id = ${endpoint.id}`;
    const alone = await run({ DATABASE_URL: db.url, APP_SECRET: SECRET });
    assert.equal(alone.code, 1, alone.stderr);
    assert.deepEqual(ids(JSON.parse(alone.stdout).findings), ['url-credentials.stored-unencrypted']);

    // the remedy: sealed under the secret, no longer flagged
    const sealed = await app(['secrets:seal', '--json'], { DATABASE_URL: db.url, APP_SECRET: SECRET });
    assert.equal(sealed.code, 0, sealed.stderr);
    assert.equal(JSON.parse(sealed.stdout).urls, 1);
    await assertNoFindings(db);
  });

  it('a url sealed under APP_SECRET, or without credentials, is not flagged; one written unsealed by other software is', async () => {
    const db = await createTestDatabase();
    const sealed = await register(db, SECRET, BROKER_URL);
    assert.match(await storedUrl(db, sealed.id), /^amqps:\/\/sealed\.enc%3Av1%3A/);
    await register(db, SECRET, 'https://127.0.0.1/plain-receiver');
    assert.equal(await countUrlCredentialsInClear(db), 0);
    await assertNoFindings(db);

    await db.sql`insert into app_webhooks (id, url, events)
      values ('ep_foreign', ${`redis://default:${BROKER_PASSWORD}@127.0.0.1:6379/0?stream=orders`}, '{*}')`;
    const found = await run({ DATABASE_URL: db.url, APP_SECRET: SECRET });
    assert.equal(found.code, 1, found.stderr);
    assert.deepEqual(ids(JSON.parse(found.stdout).findings), ['url-credentials.stored-unencrypted']);
    assert.ok(!found.stdout.includes(BROKER_PASSWORD));
  });

  it('counts the endpoints with header values stored unencrypted, never printing them, until secrets:seal; sealed ones are not flagged', async () => {
    const db = await createTestDatabase();
    const HEADER_VALUE = 'Bearer hv-5e0a91';
    const headers = { authorization: HEADER_VALUE };
    const config = (secret: string | null) => ({ config: db.configWith({ secret }), sql: db.sql, log: db.log });
    const clear = await registerEndpoint(config(null), OPERATOR, {
      url: 'https://127.0.0.1/with-headers',
      events: ['*'],
      headers,
    });
    await registerEndpoint(config(SECRET), OPERATOR, {
      url: 'https://127.0.0.1/sealed-headers',
      events: ['*'],
      headers,
    });
    assert.equal(await countHeaderValuesInClear(db), 1, 'the one registered without APP_SECRET only');
    await db.sql`update app_webhooks set secrets = '[]'::jsonb where id = ${clear.id}`;

    const found = await run({ DATABASE_URL: db.url, APP_SECRET: SECRET });
    assert.equal(found.code, 1, found.stderr);
    const report = JSON.parse(found.stdout);
    assert.deepEqual(ids(report.findings), ['header-values.stored-unencrypted']);
    assert.equal(report.findings[0].severity, 'high');
    assert.match(report.findings[0].message, /^1 endpoint\(s\) have header values/);
    assert.ok(!found.stdout.includes(HEADER_VALUE) && !found.stderr.includes(HEADER_VALUE), 'the value is not printed');

    const sealed = await app(['secrets:seal', '--json'], { DATABASE_URL: db.url, APP_SECRET: SECRET });
    assert.equal(sealed.code, 0, sealed.stderr);
    await assertNoFindings(db);
  });

  it('a previous secret still configured is a low finding saying how many values are still sealed under it, until secrets:seal moves them and it is removed', async () => {
    const db = await createTestDatabase();
    const PREVIOUS = 'the production application secret before the rotation';
    await registerEndpoint({ config: db.configWith({ secret: PREVIOUS }), sql: db.sql, log: db.log }, OPERATOR, {
      url: BROKER_URL,
      events: ['*'],
      headers: { authorization: 'Bearer hv-5e0a91' },
    });
    const rotating = { DATABASE_URL: db.url, APP_SECRET: SECRET, APP_PREVIOUS_SECRETS: PREVIOUS };
    assert.equal(
      await countSealedUnderPrevious({ ...db, config: db.configWith({ secret: SECRET, previousSecrets: [PREVIOUS] }) }),
      3,
    );

    const found = await run(rotating);
    assert.equal(found.code, 0, `a low finding only: ${found.stderr}`);
    const [finding] = JSON.parse(found.stdout).findings;
    assert.deepEqual(
      { id: finding.id, severity: finding.severity, setting: finding.setting, remedy: finding.remedy },
      {
        id: 'secret.previous-configured',
        severity: 'low',
        setting: 'previousSecrets',
        remedy: 'run `app secrets:seal`, then remove APP_PREVIOUS_SECRETS',
      },
    );
    assert.match(finding.message, /3 value\(s\) in the endpoint store are still sealed under one$/);
    assert.ok(!found.stdout.includes(PREVIOUS), 'the previous secret is not printed');

    const sealed = await app(['secrets:seal', '--json'], rotating);
    assert.equal(sealed.code, 0, sealed.stderr);
    assert.equal(JSON.parse(sealed.stdout).moved, 3);
    const after = await run(rotating);
    assert.deepEqual(ids(JSON.parse(after.stdout).findings), ['secret.previous-configured']);
    assert.match(
      JSON.parse(after.stdout).findings[0].message,
      /no value in the endpoint store is sealed under one any more$/,
    );
    await assertNoFindings(db);
  });

  it('values sealed under a secret that is neither APP_SECRET nor a previous one (a backup restored under another secret) are a high finding, until the secret they were sealed under is listed', async () => {
    const db = await createTestDatabase();
    const BACKUP = 'the application secret the restored backup ran with';
    await registerEndpoint({ config: db.configWith({ secret: BACKUP }), sql: db.sql, log: db.log }, OPERATOR, {
      url: BROKER_URL,
      events: ['*'],
      headers: { authorization: 'Bearer hv-91c3d2' },
    });

    const found = await run({ DATABASE_URL: db.url, APP_SECRET: SECRET });
    assert.equal(found.code, 1, `a high finding: ${found.stderr}`);
    const [finding, ...others] = JSON.parse(found.stdout).findings;
    assert.deepEqual(others, []);
    assert.deepEqual(
      { id: finding.id, severity: finding.severity, setting: finding.setting },
      { id: 'secrets.unopenable', severity: 'high', setting: 'secret' },
    );
    // the signing secret, the header value and the url credentials
    assert.match(finding.message, /^3 value\(s\) in the endpoint store .*APP_WEBHOOK_SECRET_UNREADABLE$/);
    assert.match(finding.remedy, /APP_PREVIOUS_SECRETS/);

    const listed = await run({ DATABASE_URL: db.url, APP_SECRET: SECRET, APP_PREVIOUS_SECRETS: BACKUP });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(ids(JSON.parse(listed.stdout).findings), ['secret.previous-configured']);
  });

  it('on a database not migrated: says so and to run app migrate, lists the findings of the configuration, and exits 4', async () => {
    const blank = await createTestDatabase({ empty: true });
    const result = await app(['audit'], {
      DATABASE_URL: blank.url,
      APP_SECRET: SECRET,
      APP_GRAPHQL__INTROSPECTION: 'true',
    });
    assert.equal(result.code, 4, result.stderr);
    const [heading, ...rest] = result.stdout.trim().split('\n');
    assert.match(
      heading,
      /^security audit \(production; database not checked: the database is not migrated \(relation "app_\w+" does not exist\): run `app migrate`\)$/,
    );
    assert.match(rest.join('\n'), /^MEDIUM graphql\.introspection-enabled/, 'the configuration is still audited');
    const json = await run({ DATABASE_URL: blank.url, APP_SECRET: SECRET });
    assert.equal(json.code, 4);
    assert.match(JSON.parse(json.stdout).database, /^not checked: the database is not migrated .*: run `app migrate`$/);
  });

  it('on a database that cannot be reached: names its host and the reason, and exits 4; a high finding still exits 1', async () => {
    const url = `postgres://app@127.0.0.1:${await freePort()}/app`;
    const result = await run({ DATABASE_URL: url, APP_SECRET: SECRET });
    assert.equal(result.code, 4, result.stderr);
    assert.match(
      JSON.parse(result.stdout).database,
      /^not checked: cannot reach the database at 127\.0\.0\.1:\d+ \(DATABASE_URL\): connect ECONNREFUSED/,
    );
    const high = await run({ DATABASE_URL: url, APP_SECRET: SECRET, APP_WEBHOOKS__ALLOW_HTTP: 'true' });
    assert.equal(high.code, 1, 'a high finding is the failure to report, whatever the database');
  });

  it('runs without a secret in production (the guard would refuse it) and exits 1 on the high findings', async () => {
    const result = await run({ APP_WEBHOOKS__ALLOW_PRIVATE: 'true', APP_GRAPHQL__INTROSPECTION: 'true' });
    assert.equal(result.code, 1, result.stderr);
    const report = JSON.parse(result.stdout);
    assert.deepEqual(ids(report.findings), [
      'webhooks.private-addresses-allowed',
      'secret.missing',
      'graphql.introspection-enabled',
    ]);
    assert.deepEqual(report.summary, { high: 2, medium: 1, low: 0, info: 0 });
    assert.equal(report.database, 'not checked: no DATABASE_URL');
  });
});
