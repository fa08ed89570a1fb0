/**
 * Moving the endpoint table to another store (`webhooks:copy`), as an operator does it: endpoints
 * registered in the service's PostgreSQL, then `webhooks.store` pointed at MariaDB. Without the
 * copy the new store is empty; with it every endpoint is there with its id, settings and signing
 * secret, its gate row and deliveries kept, and a second run brings over only what changed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cliEnvironment, runAppInProcess } from '../helpers/cli.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { createMariaDatabase } from '../helpers/mariadb.ts';

const db = await createTestDatabase();
const maria = await createMariaDatabase();

const BEFORE = cliEnvironment(db.url, {
  APP_SECRET: 'cli copy test application secret, long enough',
  APP_STORES: JSON.stringify({ registry: { adapter: 'mysql', url: maria.url } }),
});
/** The same deployment once `webhooks.store` names MariaDB. */
const AFTER = { ...BEFORE, APP_WEBHOOKS__STORE: 'registry' };

async function json<T = Record<string, unknown>>(env: Record<string, string>, args: string[]): Promise<T> {
  const run = await runAppInProcess([...args, '--json'], env);
  assert.equal(run.code, 0, `app ${args.join(' ')} failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

interface Shown {
  externalId: string;
  url: string;
  owner: string | null;
  headers: Record<string, string | null>;
  secrets?: { secret: string }[];
}

describe('webhooks:copy: moving the endpoint table to another store', () => {
  const ids: string[] = [];
  const secrets: string[] = [];

  it('starts from endpoints in the service database, one with a delivery', async () => {
    for (const owner of ['acme', 'globex']) {
      const added = await json<{ externalId: string; secret: string }>(BEFORE, [
        'webhooks:add',
        `http://127.0.0.1:9/${owner}`,
        '--events',
        'order.*',
        '--owner',
        owner,
        '--header',
        'Authorization: Bearer receiver-credential',
      ]);
      ids.push(added.externalId);
      secrets.push(added.secret);
    }
    const emitted = await json<{ deliveryCount: number }>(BEFORE, ['events:emit', 'order.created', '--owner', 'acme']);
    assert.equal(emitted.deliveryCount, 1);
  });

  it('the new store starts empty; --dry-run counts, copies nothing', async () => {
    await json(AFTER, ['webhooks:install']);
    assert.deepEqual(await json<unknown[]>(AFTER, ['webhooks:list']), []);
    const dry = await json<Record<string, unknown>>(AFTER, ['webhooks:copy', '--from', 'default', '--dry-run']);
    assert.deepEqual(dry, {
      from: 'default',
      to: 'registry',
      total: 2,
      copied: 2,
      updated: 0,
      unchanged: 0,
      dryRun: true,
    });
    assert.deepEqual(await json<unknown[]>(AFTER, ['webhooks:list']), []);
  });

  it('copies every endpoint as it is: id, owner, headers, signing secret; gate rows and deliveries kept', async () => {
    const copied = await json<{ copied: number; total: number }>(AFTER, ['webhooks:copy', '--from', 'default']);
    assert.equal(copied.copied, 2);
    const listed = await json<Shown[]>(AFTER, ['webhooks:list']);
    assert.deepEqual(listed.map((endpoint) => endpoint.externalId).sort(), [...ids].sort());
    const shown = await json<Shown>(AFTER, ['webhooks:show', ids[0], '--reveal']);
    assert.equal(shown.url, 'http://127.0.0.1:9/acme');
    assert.equal(shown.owner, 'acme');
    assert.deepEqual(shown.headers, { Authorization: 'Bearer receiver-credential' });
    assert.deepEqual(
      shown.secrets?.map((secret) => secret.secret),
      [secrets[0]],
    );
    const text = await maria.tableAsText('app_webhooks');
    assert.equal(text.includes(secrets[0]), false, 'still sealed in the new store');
    const gates = await db.sql<{ n: number }[]>`select count(*)::int as n from app_endpoint_gate`;
    assert.equal(gates[0].n, 2);
    const deliveries = await db.sql<{ n: number }[]>`
      select count(*)::int as n from app_webhook_deliveries where endpoint_id = ${ids[0]}`;
    assert.equal(deliveries[0].n, 1);
    const emitted = await json<{ deliveryCount: number }>(AFTER, ['events:emit', 'order.created', '--owner', 'globex']);
    assert.equal(emitted.deliveryCount, 1, 'an emit reaches the copied endpoint');
  });

  it('run again, brings over only what changed in the old store since', async () => {
    await json(BEFORE, ['webhooks:update', ids[1], '--url', 'http://127.0.0.1:9/globex-2']);
    const again = await json<Record<string, number>>(AFTER, ['webhooks:copy', '--from', 'default']);
    assert.deepEqual([again.copied, again.updated, again.unchanged], [0, 1, 1]);
    assert.equal((await json<Shown>(AFTER, ['webhooks:show', ids[1]])).url, 'http://127.0.0.1:9/globex-2');
    const last = await json<Record<string, number>>(AFTER, ['webhooks:copy', '--from', 'default']);
    assert.deepEqual([last.copied, last.updated, last.unchanged], [0, 0, 2]);
  });

  it('refuses a store that does not exist, and the endpoint store itself (exit 2)', async () => {
    const unknown = await runAppInProcess(['webhooks:copy', '--from', 'nope'], AFTER);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--from nope: no such store \(stores: default, registry\)/);
    const itself = await runAppInProcess(['webhooks:copy', '--from', 'registry'], AFTER);
    assert.equal(itself.code, 2);
    assert.match(itself.stderr, /is the endpoint store itself/);
  });
});
