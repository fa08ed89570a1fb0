import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from '../../../helpers/database.ts';
import { eventually } from '../../../helpers/poll.ts';
import { signingSecrets } from '../../../../shared/webhooks/endpoints/secrets.ts';
import { emit } from '../../../../shared/webhooks/events/emit.ts';
import { sign, verify } from '../../../../shared/webhooks/signing.ts';
import { createWebhooks } from '../../../../shared/webhooks/index.ts';
import { UNENCRYPTED_SECRETS_WARNING, warnIfSecretsUnencrypted } from '../../../../shared/webhooks/boot.ts';
import { appError, captureLogger, depsOf } from '../fixtures.ts';
import {
  endpointStatuses,
  listEndpoints,
  registerEndpoint,
  rotateSecret,
  revealEndpoint,
  showEndpoint,
  updateEndpoint,
} from '../../../../shared/webhooks/endpoints/index.ts';
import { OPERATOR } from '../../../../shared/access/actor.ts';

const db = await createTestDatabase();
const APP_SECRET = 'the application secret of these tests, long enough';
const withSecret = (secret: string | null = APP_SECRET) => depsOf(db, { secret });

/** Every text-like column of every app_* table, as text (a poor man's pg_dump). */
async function dumpAppTables(): Promise<string> {
  const columns = await db.sql<{ table_name: string; column_name: string }[]>`
    select table_name, column_name from information_schema.columns
    where table_schema = current_schema() and table_name like 'app\\_%'
      and data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED', 'bytea')
    order by table_name, column_name`;
  assert.ok(columns.some((c) => c.table_name === 'app_webhooks' && c.column_name === 'secrets'));
  let dump = '';
  for (const { table_name, column_name } of columns) {
    const rows = await db.sql<
      { value: string | null }[]
    >`select ${db.sql(column_name)}::text as value from ${db.sql(table_name)}`;
    dump += rows.map((row) => row.value ?? '').join('\n');
  }
  return dump;
}

describe('secrets at rest', () => {
  it('stores no plaintext secret anywhere in the app_* tables when config.secret is set', async () => {
    const endpoint = await registerEndpoint(withSecret(), OPERATOR, { url: 'https://127.0.0.1/dump', events: ['*'] });
    const rotated = await rotateSecret(withSecret(), OPERATOR, endpoint.id, { grace: 60_000 });
    const dump = await dumpAppTables();
    for (const secret of [endpoint.secret, rotated.secret]) {
      assert.ok(!dump.includes(secret), 'whsec_ secret found in the database');
      assert.ok(!dump.includes(secret.slice('whsec_'.length)), 'base64 key found in the database');
      assert.ok(
        !dump.includes(Buffer.from(secret.slice(6), 'base64').toString('hex')),
        'hex key found in the database',
      );
    }
    const [row] = await db.sql<
      { sealed: string }[]
    >`select secrets -> 0 ->> 'sealed' as sealed from app_webhooks where id = ${endpoint.id}`;
    assert.match(row.sealed, /^enc:v1:[0-9a-f]{8}:/);
  });

  it('stores secrets unencrypted (plain:) without config.secret, and the boot warning says so once', async () => {
    const endpoint = await registerEndpoint(withSecret(null), OPERATOR, {
      url: 'https://127.0.0.1/plain',
      events: ['*'],
    });
    const [row] = await db.sql<
      { sealed: string }[]
    >`select secrets -> 0 ->> 'sealed' as sealed from app_webhooks where id = ${endpoint.id}`;
    assert.equal(row.sealed, `plain:${endpoint.secret}`);
    const capture = captureLogger(db.config);
    assert.equal(warnIfSecretsUnencrypted({ config: { secret: null, env: 'development' }, log: capture.log }), true);
    assert.equal(
      warnIfSecretsUnencrypted({ config: { secret: APP_SECRET, env: 'production' }, log: capture.log }),
      false,
    );
    const cli = { onlyInProduction: true };
    assert.equal(
      warnIfSecretsUnencrypted({ config: { secret: null, env: 'development' }, log: capture.log }, cli),
      false,
      'a CLI write outside production: no secret is ordinary there, nothing said',
    );
    assert.equal(
      warnIfSecretsUnencrypted({ config: { secret: null, env: 'production' }, log: capture.log }, cli),
      true,
    );
    const lines = capture.lines();
    assert.equal(lines.length, 2);
    assert.equal(lines[1].msg, UNENCRYPTED_SECRETS_WARNING);
    assert.equal(lines[0].msg, UNENCRYPTED_SECRETS_WARNING);
    assert.equal(lines[0].level, 40);
  });

  it('opens secrets stored unencrypted after an application secret is set', async () => {
    const endpoint = await registerEndpoint(withSecret(null), OPERATOR, {
      url: 'https://127.0.0.1/later',
      events: ['*'],
    });
    assert.deepEqual(await signingSecrets(withSecret(), endpoint.id), [endpoint.secret]);
  });
});

describe('rotate', () => {
  it('without grace: the new secret signs and the old one stops at once', async () => {
    const deps = withSecret();
    const endpoint = await registerEndpoint(deps, OPERATOR, { url: 'https://127.0.0.1/r1', events: ['*'] });
    const { secret, graceEndsAt } = await rotateSecret(deps, OPERATOR, endpoint.id);
    assert.match(secret, /^whsec_/);
    assert.notEqual(secret, endpoint.secret);
    assert.equal(graceEndsAt, null);
    assert.deepEqual(await signingSecrets(deps, endpoint.id), [secret]);
    const [{ n }] = await db.sql<
      { n: number }[]
    >`select jsonb_array_length(secrets) as n from app_webhooks where id = ${endpoint.id}`;
    assert.equal(n, 1, 'the old secret is deleted');
  });

  it('with grace: old and new secrets both sign until the grace ends, and the header carries two v1 entries', async () => {
    const deps = withSecret();
    const endpoint = await registerEndpoint(deps, OPERATOR, { url: 'https://127.0.0.1/r2', events: ['*'] });
    const before = Date.now();
    const { secret, graceEndsAt } = await rotateSecret(deps, OPERATOR, endpoint.id, { grace: 24 * 3600_000 });
    assert.ok(graceEndsAt instanceof Date);
    assert.ok(Math.abs(graceEndsAt.getTime() - (before + 24 * 3600_000)) < 60_000);
    const secrets = await signingSecrets(deps, endpoint.id);
    assert.deepEqual(secrets, [secret, endpoint.secret], 'newest first');
    const timestamp = Math.floor(Date.now() / 1000);
    const header = sign({ id: 'msg_1', timestamp, body: '{}', secrets });
    assert.equal(header.split(' ').length, 2);
    for (const s of [secret, endpoint.secret]) {
      assert.equal(
        verify({
          body: '{}',
          secret: s,
          headers: { 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': header },
        }).ok,
        true,
      );
    }
    const shown = await showEndpoint(deps, OPERATOR, endpoint.id);
    assert.equal(shown.secrets.length, 2);
    assert.equal(shown.secrets[0].expiresAt, null);
    assert.deepEqual(shown.secrets[1].expiresAt, graceEndsAt);
  });

  it('with grace: once the grace has passed only the new secret signs', async () => {
    const deps = withSecret();
    const endpoint = await registerEndpoint(deps, OPERATOR, { url: 'https://127.0.0.1/r3', events: ['*'] });
    const { secret, graceEndsAt } = await rotateSecret(deps, OPERATOR, endpoint.id, { grace: 50 });
    assert.ok(graceEndsAt instanceof Date);
    // the grace ends by the clock of the process that reads the secrets
    const ended = async () => Date.now() > (graceEndsAt as Date).getTime();
    await eventually(ended, 10_000, 'the database clock to pass the end of the grace');
    assert.deepEqual(await signingSecrets(deps, endpoint.id), [secret]);
  });

  it('a later rotation without grace ends a grace period at once', async () => {
    const deps = withSecret();
    const endpoint = await registerEndpoint(deps, OPERATOR, { url: 'https://127.0.0.1/r4', events: ['*'] });
    await rotateSecret(deps, OPERATOR, endpoint.id, { grace: 3600_000 });
    const { secret } = await rotateSecret(deps, OPERATOR, endpoint.id);
    assert.deepEqual(await signingSecrets(deps, endpoint.id), [secret]);
  });

  it('a second rotation with grace never extends the end of an earlier grace', async () => {
    const deps = withSecret();
    const endpoint = await registerEndpoint(deps, OPERATOR, { url: 'https://127.0.0.1/r5', events: ['*'] });
    const first = await rotateSecret(deps, OPERATOR, endpoint.id, { grace: 60_000 });
    const second = await rotateSecret(deps, OPERATOR, endpoint.id, { grace: 3600_000 });
    const shown = await revealEndpoint(deps, OPERATOR, endpoint.id);
    const byValue = new Map(shown.secrets.map((s) => ['secret' in s ? s.secret : '', s.expiresAt]));
    assert.deepEqual(byValue.get(endpoint.secret), first.graceEndsAt);
    assert.deepEqual(byValue.get(first.secret), second.graceEndsAt);
    assert.equal(byValue.get(second.secret), null);
  });

  it('rotations with grace keep at most five secrets signing: the newest and the four before it', async () => {
    const deps = withSecret();
    const endpoint = await registerEndpoint(deps, OPERATOR, { url: 'https://127.0.0.1/r6', events: ['*'] });
    const rotated: string[] = [];
    for (let i = 0; i < 7; i++)
      rotated.push((await rotateSecret(deps, OPERATOR, endpoint.id, { grace: 3600_000 })).secret);
    const signing = await signingSecrets(deps, endpoint.id);
    assert.deepEqual(signing, rotated.slice(-5).reverse(), 'newest first, the older ones no longer sign');
    const header = sign({ id: 'msg_1', timestamp: Math.floor(Date.now() / 1000), body: '{}', secrets: signing });
    assert.equal(header.split(' ').length, 5);
  });

  for (const grace of [-1, Number.NaN, Infinity, '24h', 366 * 86_400_000]) {
    it(`refuses a grace of ${String(grace)} with APP_WEBHOOK_GRACE_INVALID`, async () => {
      const endpoint = await registerEndpoint(withSecret(), OPERATOR, { url: 'https://127.0.0.1/g', events: ['*'] });
      await assert.rejects(
        rotateSecret(withSecret(), OPERATOR, endpoint.id, { grace: grace as number }),
        appError('APP_WEBHOOK_GRACE_INVALID', 422),
      );
    });
  }

  it('refuses an unknown endpoint with APP_WEBHOOK_NOT_FOUND', async () => {
    await assert.rejects(rotateSecret(withSecret(), OPERATOR, 'ep_UNKNOWN'), appError('APP_WEBHOOK_NOT_FOUND', 404));
  });
});

describe('a changed application secret', () => {
  it('makes reading the secret fail with APP_WEBHOOK_SECRET_UNREADABLE naming the endpoint and the remedy; nothing else breaks; rotating recovers', async () => {
    const endpoint = await registerEndpoint(withSecret(), OPERATOR, {
      url: 'https://127.0.0.1/changed',
      events: ['changed.*'],
      owner: 'tenant-changed',
    });
    const changed = withSecret('another application secret entirely');
    await assert.rejects(
      signingSecrets(changed, endpoint.id),
      appError('APP_WEBHOOK_SECRET_UNREADABLE', 500, (e) => {
        assert.match(e.message, new RegExp(endpoint.id));
        assert.match(e.message, new RegExp(`app webhooks:rotate ${endpoint.id}`));
      }),
    );
    await assert.rejects(revealEndpoint(changed, OPERATOR, endpoint.id), appError('APP_WEBHOOK_SECRET_UNREADABLE'));
    // Everything that does not open the secret keeps working.
    assert.equal((await showEndpoint(changed, OPERATOR, endpoint.id)).id, endpoint.id);
    assert.ok(
      (await listEndpoints(changed, OPERATOR, { owner: 'tenant-changed' })).records.some((e) => e.id === endpoint.id),
    );
    assert.equal((await endpointStatuses(changed, OPERATOR, { owner: 'tenant-changed' })).length, 1);
    assert.equal(
      (await updateEndpoint(changed, OPERATOR, endpoint.id, { description: 'still editable' })).description,
      'still editable',
    );
    assert.equal((await emit(changed, 'changed.thing', { a: 1 }, { owner: 'tenant-changed' })).length, 1);
    // Rotating gives a readable secret again (without grace the unreadable one is gone).
    const { secret } = await rotateSecret(changed, OPERATOR, endpoint.id);
    assert.deepEqual(await signingSecrets(changed, endpoint.id), [secret]);
  });
});

describe('secrets never reach a log line or the cache', () => {
  it('registering, rotating, revealing and emitting log no secret, even at trace level', async () => {
    const capture = captureLogger(db.config);
    const webhooks = createWebhooks({ ...withSecret(), log: capture.log });
    try {
      const endpoint = await webhooks.register({ url: 'https://127.0.0.1/logs', events: ['*'], owner: 'logs' });
      const a = await webhooks.rotate(endpoint.id, { grace: 60_000 });
      const b = await webhooks.rotate(endpoint.id);
      await webhooks.show(endpoint.id, { reveal: true });
      await webhooks.emit('log.check', { ok: true }, { owner: 'logs' });
      const cached = await webhooks.cache.get('logs');
      const text = capture.text();
      assert.ok(text.length > 0, 'something was logged');
      for (const secret of [endpoint.secret, a.secret, b.secret]) {
        assert.ok(!text.includes(secret.slice(6)), 'a secret appears in the log');
        assert.ok(!JSON.stringify(cached).includes(secret.slice(6)), 'a secret appears in the cache');
      }
      assert.deepEqual(Object.keys(cached[0]).sort(), ['events', 'filter', 'id']);
    } finally {
      await webhooks.close();
    }
  });
});
