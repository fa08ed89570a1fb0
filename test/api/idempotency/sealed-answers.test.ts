/**
 * Answers stored for an Idempotency-Key never hold a signing secret in clear,
 * in any shared store, while a replay still gives the client its secret.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { call, closeAll, startApi, type ApiHarness } from '../webhooks-api/helpers.ts';
import { REDIS_SKIP, startRedis } from '../../shared/stores/redis-server.ts';

const SECRET = 'an application secret for sealed idempotent answers';

/** Registers, rotates and registers over GraphQL with keys, replays each once; answers the secrets handed out. */
async function exercise(app: ApiHarness): Promise<string[]> {
  const token = await app.token('admin');
  const secrets: string[] = [];
  const twice = async (method: string, url: string, key: string, body: unknown, pick: (b: any) => string) => {
    const first = await call(method, url, {
      token,
      body,
      headers: { 'Idempotency-Key': key, Accept: 'application/json' },
    });
    const replay = await call(method, url, {
      token,
      body,
      headers: { 'Idempotency-Key': key, Accept: 'application/json' },
    });
    assert.equal(replay.headers.get('idempotency-replayed'), 'true', `${url} replayed`);
    assert.equal(pick(replay.body), pick(first.body), 'the replay gives the client its secret');
    secrets.push(pick(first.body));
    return first.body;
  };
  const created = await twice(
    'POST',
    `${app.api}/webhooks`,
    'sealed-1',
    { url: 'https://127.0.0.1/sealed', events: ['*'] },
    (b) => b.secret,
  );
  await twice('POST', `${app.api}/webhooks/${created.externalId}/rotate`, 'sealed-2', {}, (b) => b.secret);
  await twice(
    'POST',
    `${app.base}/_app/gql`,
    'sealed-3',
    {
      query: 'mutation { registerWebhookEndpoint(input: { url: "https://127.0.0.1/gql", events: ["*"] }) { secret } }',
    },
    (b) => b.data.registerWebhookEndpoint.secret,
  );
  for (const secret of secrets) assert.match(secret, /^whsec_/);
  return secrets;
}

const leaks = (texts: string[], secrets: string[]) =>
  texts.filter((text) => text.includes('whsec_') || secrets.some((secret) => text.includes(secret.slice(6))));

describe('stored idempotent answers are sealed', () => {
  after(closeAll); // the worker and servers stop before the database is dropped
  it('PostgreSQL shared store: no signing secret in app_shared_entries', async () => {
    const app = await startApi({ secret: SECRET, shared: { backend: 'postgres' } });
    const secrets = await exercise(app);
    const rows = await app.db.sql<{ text: string }[]>`select key || ' ' || value::text as text from app_shared_entries`;
    assert.ok(rows.length >= 3, `answers stored: ${rows.length}`);
    assert.deepEqual(
      leaks(
        rows.map((row) => row.text),
        secrets,
      ),
      [],
    );
  });

  it('Redis shared store: no signing secret in any key', { skip: REDIS_SKIP }, async () => {
    const redis = await startRedis();
    const app = await startApi({ secret: SECRET, shared: { backend: 'redis', url: redis.url } });
    const secrets = await exercise(app);
    const client = new Redis(redis.url);
    try {
      const keys = await client.keys('*');
      const values = await Promise.all(keys.map(async (key) => `${key} ${await client.get(key).catch(() => '')}`));
      assert.ok(
        keys.some((key) => key.includes('idem')),
        keys.join(', '),
      );
      assert.deepEqual(leaks(values, secrets), []);
    } finally {
      client.disconnect();
      await redis.stop();
    }
  });

  it('in-process store too, and every log line', async () => {
    const app = await startApi({ secret: SECRET });
    const secrets = await exercise(app);
    assert.deepEqual(leaks(app.logs, secrets), []);
  });
});
