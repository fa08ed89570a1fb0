/**
 * An endpoint store that is down, seen from outside: the web process as deployed
 * (`node api/main.ts`, configured by its environment) with its endpoint table in MariaDB behind a
 * TCP proxy this file controls. While the proxy's port is closed (a server that refuses
 * connections, the most common outage) `/readyz` names the store and answers 503, `/livez` stays
 * 200, and a registration or an emit answers 503 `APP_STORE_UNAVAILABLE` with `Retry-After`,
 * leaving nothing half-written in PostgreSQL or in the store. Once the port listens again the
 * same process, never restarted, installs its table (it booted while the store was down), turns
 * ready and registers; the same holds when the store goes away while the process runs. A store
 * that answers too late (its table locked) makes readiness say `timeout` and a registration 503;
 * the insert that lands once the lock is released is removed again, since its caller was told
 * it failed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { operatorToken, startWebProcess, stopDeployment, type DeployedWeb } from '../../helpers/deployment.ts';
import { createMariaDatabase, type TestMariaDatabase } from '../../helpers/mariadb.ts';
import { eventually } from '../../helpers/poll.ts';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.ts';
import { call, type Answer } from '../webhooks-api/helpers.ts';

const APP_SECRET = 'outage test application secret of at least 32 characters';
const TABLE = 'app_webhooks';

let db: TestDatabase;
let maria: TestMariaDatabase;
let proxy: TcpProxy;
let web: DeployedWeb;
let token: string;

before(async () => {
  db = await createTestDatabase();
  maria = await createMariaDatabase();
  proxy = await startTcpProxy(maria.url);
  await proxy.cut(); // the store's port refuses connections from the start
  web = await startWebProcess({
    DATABASE_URL: db.url,
    APP_SECRET,
    APP_STORES: JSON.stringify({ registry: { adapter: 'mysql', url: proxy.url } }),
    APP_WEBHOOKS__STORE: 'registry',
  });
  token = await operatorToken(db.url, APP_SECRET);
});

const readiness = () => call('GET', `${web.base}/readyz`);
const register = (path: string) =>
  call('POST', `${web.base}/api/v1/webhooks`, {
    token,
    body: { url: `http://127.0.0.1:9${path}`, events: ['order.*'], owner: 'acme', headers: { 'X-Api-Key': 'k' } },
  });

/** Rows of PostgreSQL that a registration or an emit would write. */
async function serviceRows(): Promise<{ gates: number; endpoints: number; events: number }> {
  const [row] = await db.sql<{ gates: number; endpoints: number; events: number }[]>`
    select (select count(*)::int from app_endpoint_gate) as gates,
           (select count(*)::int from app_webhooks) as endpoints,
           (select count(*)::int from app_events) as events`;
  return { ...row };
}

/** The ids in the store's table, read directly from MariaDB. */
async function storedIds(): Promise<string[]> {
  return (await maria.rows(`SELECT id FROM \`${TABLE}\` ORDER BY id`)).map((row) => String(row.id));
}

/** What every answer of the web process says while the store is down. */
async function assertDown(): Promise<void> {
  const ready = await readiness();
  assert.equal(ready.status, 503, ready.text);
  assert.equal(ready.body.status, 'unavailable');
  assert.equal(ready.body.reason, 'store registry did not answer');
  assert.deepEqual(ready.body.stores.registry, { adapter: 'mysql', ok: false, error: 'unreachable' });
  assert.equal(ready.body.stores.default.ok, true, "the service's own database still answers");
  const live = await call('GET', `${web.base}/livez`);
  assert.equal(live.status, 200, live.text);

  const before = await serviceRows();
  const refused = await register('/while-down');
  assertUnavailable(refused);
  const emitted = await call('POST', `${web.base}/api/v1/events`, {
    token,
    body: { type: 'order.created', data: {}, owner: 'acme' },
  });
  assertUnavailable(emitted);
  assertUnavailable(await call('GET', `${web.base}/api/v1/webhooks`, { token }));
  assert.deepEqual(await serviceRows(), before, 'nothing half-written in PostgreSQL: no gate row, no event');
}

function assertUnavailable(answer: Answer): void {
  assert.equal(answer.status, 503, answer.text);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(answer.body.code, 'APP_STORE_UNAVAILABLE', answer.text);
  assert.equal(answer.headers.get('retry-after'), '5');
  assert.match(answer.body.detail ?? answer.body.title ?? answer.text, /registry/, 'the problem names the store');
}

async function becomesReady(): Promise<Answer> {
  return eventually(
    async () => {
      const answer = await readiness();
      return answer.status === 200 ? answer : undefined;
    },
    60_000,
    '/readyz to answer 200 again',
    100,
  );
}

describe('an endpoint store that is down', () => {
  after(stopDeployment);

  it('down when the process starts: readiness 503 naming it, /livez 200, writes and emits 503 APP_STORE_UNAVAILABLE with Retry-After, nothing written', async () => {
    await assertDown();
    assert.deepEqual(await serviceRows(), { gates: 0, endpoints: 0, events: 0 });
  });

  it('back again: the same process installs its table, turns ready, and registers; the refused registration left nothing in the store', async () => {
    await proxy.restore();
    const ready = await becomesReady();
    assert.equal(ready.body.stores.registry.ok, true);
    assert.deepEqual(await storedIds(), [], 'nothing reached the store while it was down');

    const created = await register('/after');
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(await storedIds(), [created.body.externalId]);
    assert.deepEqual(await serviceRows(), { gates: 1, endpoints: 0, events: 0 });
  });

  it('down while the process runs (its pooled connections cut): the same answers; back, it serves again without a restart', async () => {
    const stored = await storedIds();
    await proxy.cut();
    await assertDown();
    assert.deepEqual(await serviceRows(), { gates: 1, endpoints: 0, events: 0 });

    await proxy.restore();
    await becomesReady();
    assert.deepEqual(await storedIds(), stored, 'nothing reached the store while it was down');
    const created = await register('/after-again');
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(await storedIds(), [...stored, created.body.externalId].sort());
    assert.equal((await serviceRows()).gates, 2);
  });

  it('a store that answers too late (its table locked): readiness says timeout, a registration 503; landing after the lock, it is removed again', async () => {
    const stored = await storedIds();
    const gates = (await serviceRows()).gates;
    await maria.rows('SELECT 1'); // the admin connection in the test database
    await maria.admin.query(`LOCK TABLES \`${TABLE}\` WRITE`);
    try {
      const [ready, refused] = await Promise.all([readiness(), register('/behind-a-lock')]);
      assert.equal(ready.status, 503, ready.text);
      assert.deepEqual(ready.body.stores.registry, { adapter: 'mysql', ok: false, error: 'timeout' });
      assertUnavailable(refused);
      assert.equal((await serviceRows()).gates, gates, 'the gate row went with the 503');
    } finally {
      await maria.admin.query('UNLOCK TABLES');
    }
    // the insert waiting behind the lock lands now, after its caller was told it failed
    const [, id] = await web.spawned.waitFor(
      /the registration of endpoint (ep_\w+) completed in the store after it was answered 503; removed again/,
      20_000,
    );
    assert.deepEqual(await storedIds(), stored, `${id} is not left in the store`);
    assert.equal((await serviceRows()).gates, gates);
    const listed = await call('GET', `${web.base}/api/v1/webhooks`, { token });
    assert.deepEqual(
      listed.body._embedded.webhooks.map((webhook: { externalId: string }) => webhook.externalId).sort(),
      stored,
      'nor listed',
    );
  });
});

after(() => proxy?.close());
