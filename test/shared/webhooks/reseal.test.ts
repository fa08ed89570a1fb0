import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countUnencryptedSecrets } from '../../../shared/security/audit-facts.ts';
import { resealSecrets } from '../../../shared/webhooks/reseal.ts';
import { signingSecrets } from '../../../shared/webhooks/endpoints/secrets.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { runAppInProcess } from '../../helpers/cli.ts';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { openUrlCredentials } from '../../../shared/webhooks/destinations/credentials.ts';
import { openHeaders } from '../../../shared/webhooks/endpoints/header-box.ts';
import { createSecretBox } from '../../../shared/webhooks/secret-box.ts';

const OLD = 'the application secret the service had before, 40 chars';
const NEW = 'the application secret the service has now, long enough';

async function setup() {
  const db = await createTestDatabase();
  const depsWith = (secret: string | null, previousSecrets: string[] = []) => ({
    config: db.configWith({ secret, previousSecrets }),
    sql: db.sql,
    log: db.log,
  });
  return { db, depsWith };
}

type Deps = ReturnType<Awaited<ReturnType<typeof setup>>['depsWith']>;

/** Registers an endpoint at `url` with one header value (`Authorization: Bearer k1`). */
const withHeader = (deps: Deps, url: string) =>
  registerEndpoint(deps, OPERATOR, { url, events: ['*'], headers: { Authorization: 'Bearer k1' } });

/** The environment of an `app` run over `db`, with `vars` laid over. */
const appEnv = (db: TestDatabase, vars: Record<string, string>) => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '/tmp',
  NODE_ENV: 'test',
  DATABASE_URL: db.url,
  ...vars,
});

/** The keyId of signing secrets sealed under `secret`. */
const keyIdUnder = (secret: string) => createSecretBox(secret).seal('x').split(':')[2];

const sealedRows = (db: TestDatabase) =>
  db.sql<{ sealed: string }[]>`
    select s.value ->> 'sealed' as sealed from app_webhooks w, jsonb_array_elements(w.secrets) with ordinality as s (value, n)
     order by w.created_at, w.id, s.n`;

describe('secrets:seal', () => {
  it('encrypts secrets stored before APP_SECRET was set; the signing secrets stay the same', async () => {
    const { db, depsWith } = await setup();
    const plain = await withHeader(depsWith(null), 'https://127.0.0.1/a');
    assert.equal(await countUnencryptedSecrets(db), 1);
    const result = await resealSecrets(depsWith(NEW));
    assert.deepEqual(result, { resealed: 1, headers: 1, urls: 0, moved: 0, current: 0, unreadable: [], dryRun: false });
    const [row] = await db.sql<{ headers: string }[]>`select headers::text from app_webhooks where id = ${plain.id}`;
    assert.match(row.headers, /"Authorization": "enc:v1:/, 'header values sealed too');
    assert.doesNotMatch(row.headers, /Bearer k1/);
    assert.equal(await countUnencryptedSecrets(db), 0);
    assert.ok((await sealedRows(db)).every((row) => row.sealed.startsWith('enc:v1:')));
    assert.deepEqual(await signingSecrets(depsWith(NEW), plain.id), [plain.secret]);
    assert.deepEqual(
      await resealSecrets(depsWith(NEW)),
      { resealed: 0, headers: 0, urls: 0, moved: 0, current: 1, unreadable: [], dryRun: false },
      'a second run changes nothing',
    );
  });

  it('re-seals secrets sealed under the previous application secret, given it; without it they are reported, not touched', async () => {
    const { db, depsWith } = await setup();
    const endpoint = await registerEndpoint(depsWith(OLD), OPERATOR, { url: 'https://127.0.0.1/b', events: ['*'] });
    const before = await sealedRows(db);
    const blind = await resealSecrets(depsWith(NEW));
    assert.deepEqual(
      blind.unreadable.map((row) => row.endpointId),
      [endpoint.id],
    );
    assert.deepEqual(await sealedRows(db), before, 'nothing changed');

    const dry = await resealSecrets(depsWith(NEW), { fromSecret: OLD, dryRun: true });
    assert.equal(dry.resealed, 1);
    assert.deepEqual(await sealedRows(db), before, 'a dry run changes nothing');

    assert.equal((await resealSecrets(depsWith(NEW), { fromSecret: OLD })).resealed, 1);
    assert.deepEqual(
      await signingSecrets(depsWith(NEW), endpoint.id),
      [endpoint.secret],
      'opens under the new secret, same signing secret',
    );
    await assert.rejects(signingSecrets(depsWith(OLD), endpoint.id), { code: 'APP_WEBHOOK_SECRET_UNREADABLE' });
  });

  it("re-seals a broker url's credentials after the application secret rotates: they open with the new secret, no longer with the old", async () => {
    const { db, depsWith } = await setup();
    const url = 'amqps://publisher:rotate-me-9f@127.0.0.1:5671/prod?exchange=events';
    const endpoint = await registerEndpoint(depsWith(OLD), OPERATOR, { url, events: ['*'] });
    const storedUrl = async () =>
      (await db.sql<{ url: string }[]>`select url from app_webhooks where id = ${endpoint.id}`)[0].url;
    const before = await storedUrl();
    assert.throws(() => openUrlCredentials(depsWith(NEW).config, before, endpoint.id), {
      code: 'APP_WEBHOOK_SECRET_UNREADABLE',
    });
    const blind = await resealSecrets(depsWith(NEW));
    assert.ok(blind.unreadable.some((row) => row.id === `url credentials of ${endpoint.id}`));
    assert.equal(await storedUrl(), before, 'unreadable without the previous secret: left as it is');

    const result = await resealSecrets(depsWith(NEW), { fromSecret: OLD });
    assert.equal(result.urls, 1);
    const after = await storedUrl();
    assert.notEqual(after, before);
    assert.doesNotMatch(after, /publisher|rotate-me/);
    assert.equal(openUrlCredentials(depsWith(NEW).config, after, endpoint.id), url);
    assert.throws(() => openUrlCredentials(depsWith(OLD).config, after, endpoint.id), {
      code: 'APP_WEBHOOK_SECRET_UNREADABLE',
    });
    assert.equal((await resealSecrets(depsWith(NEW))).urls, 0, 'a second run changes nothing');
  });

  it('after a rotation with previousSecrets, a run with no option moves every value to the current key; a second run moves none', async () => {
    const { db, depsWith } = await setup();
    const url = 'amqps://publisher:rotate-me-9f@127.0.0.1:5671/prod?exchange=events';
    const broker = await registerEndpoint(depsWith(OLD), OPERATOR, {
      url,
      events: ['*'],
      headers: { Authorization: 'Bearer k1', 'X-Tenant': 'acme' },
    });
    const http = await registerEndpoint(depsWith(OLD), OPERATOR, { url: 'https://127.0.0.1/d', events: ['*'] });
    const rotated = depsWith(NEW, [OLD]);
    const newKeyId = keyIdUnder(NEW);

    const result = await resealSecrets(rotated);
    assert.deepEqual(result, {
      resealed: 2,
      headers: 1,
      urls: 1,
      moved: 5, // two signing secrets, two header values, one url's credentials
      current: 0,
      unreadable: [],
      dryRun: false,
    });
    for (const row of await sealedRows(db)) assert.equal(row.sealed.split(':')[2], newKeyId);
    const now = depsWith(NEW); // APP_PREVIOUS_SECRETS removed: everything opens with APP_SECRET alone
    assert.deepEqual(await signingSecrets(now, broker.id), [broker.secret]);
    assert.deepEqual(await signingSecrets(now, http.id), [http.secret]);
    const [row] = await db.sql<{ url: string; headers: Record<string, string> }[]>`
      select url, headers from app_webhooks where id = ${broker.id}`;
    assert.equal(openUrlCredentials(now.config, row.url, broker.id), url);
    assert.deepEqual(openHeaders(now.config, row.headers, broker.id), {
      Authorization: 'Bearer k1',
      'X-Tenant': 'acme',
    });

    assert.deepEqual(
      await resealSecrets(rotated),
      { resealed: 0, headers: 0, urls: 0, moved: 0, current: 2, unreadable: [], dryRun: false },
      'a second run moves none',
    );
  });

  it('--from-secret-env adds its secret to those opened with: values under either previous secret move', async () => {
    const { db, depsWith } = await setup();
    const OLDER = 'the application secret two rotations ago, 40 characters';
    const older = await registerEndpoint(depsWith(OLDER), OPERATOR, { url: 'https://127.0.0.1/e', events: ['*'] });
    const old = await registerEndpoint(depsWith(OLD), OPERATOR, { url: 'https://127.0.0.1/f', events: ['*'] });
    const result = await resealSecrets(depsWith(NEW, [OLD]), { fromSecret: OLDER });
    assert.equal(result.moved, 2);
    assert.deepEqual(result.unreadable, []);
    assert.ok((await sealedRows(db)).every((row) => row.sealed.split(':')[2] === keyIdUnder(NEW)));
    assert.deepEqual(await signingSecrets(depsWith(NEW), older.id), [older.secret]);
    assert.deepEqual(await signingSecrets(depsWith(NEW), old.id), [old.secret]);
  });

  it('refuses without an application secret to seal with', async () => {
    const { depsWith } = await setup();
    await assert.rejects(resealSecrets(depsWith(null)), { code: 'APP_SECRET_REQUIRED' });
  });

  it('the command reads the previous secret from the environment variable it names, never from its arguments', async () => {
    const { db, depsWith } = await setup();
    const endpoint = await registerEndpoint(depsWith(OLD), OPERATOR, { url: 'https://127.0.0.1/c', events: ['*'] });
    const run = await runAppInProcess(
      ['secrets:seal', '--from-secret-env', 'PREVIOUS_APP_SECRET', '--json'],
      appEnv(db, { APP_SECRET: NEW, PREVIOUS_APP_SECRET: OLD }),
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).resealed, 1);
    assert.deepEqual(await signingSecrets(depsWith(NEW), endpoint.id), [endpoint.secret]);
  });

  it('the command with no option moves what is sealed under APP_PREVIOUS_SECRETS and says how many values it moved', async () => {
    const { db, depsWith } = await setup();
    const endpoint = await withHeader(depsWith(OLD), 'https://127.0.0.1/g');
    // OLD holds a comma: given as a JSON list (the comma list would cut it in two)
    const env = appEnv(db, { APP_SECRET: NEW, APP_PREVIOUS_SECRETS: JSON.stringify([OLD]) });
    const run = await runAppInProcess(['secrets:seal'], env);
    assert.equal(run.code, 0, `${run.stderr}${run.stdout}`);
    assert.match(
      run.stdout,
      /^moved 2 value\(s\) \(signing secrets, header values, url credentials alike\) from a previous secret to the current one; APP_PREVIOUS_SECRETS can be removed now$/m,
    );
    assert.deepEqual(await signingSecrets(depsWith(NEW), endpoint.id), [endpoint.secret]);
    const again = await runAppInProcess(['secrets:seal'], env);
    assert.match(again.stdout, /^moved 0 value\(s\)/m);
  });
});
