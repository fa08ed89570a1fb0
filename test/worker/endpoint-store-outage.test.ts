/**
 * The worker with its endpoint store down, as deployed (`node worker/main.ts`, configured by its
 * environment): its endpoint table in MariaDB behind a TCP proxy this file controls, while the web
 * process reaches the same MariaDB directly (registrations and emits go on). A worker started
 * while its store refuses connections starts all the same (it needs the store only to deliver),
 * a delivery it takes up meanwhile waits rather than failing or being sent without its endpoint,
 * and once the store answers again the delivery is sent, signed and with its header, by the same
 * process.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import {
  operatorToken,
  startWebProcess,
  startWorkerProcess,
  stopDeployment,
  type DeployedProcess,
  type DeployedWeb,
} from '../helpers/deployment.ts';
import { createMariaDatabase, type TestMariaDatabase } from '../helpers/mariadb.ts';
import { eventually } from '../helpers/poll.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { call, closeAll, receiver, type Receiver } from '../api/webhooks-api/helpers.ts';

const APP_SECRET = 'worker outage test application secret of at least 32 characters';
const storesAt = (url: string) => JSON.stringify({ registry: { adapter: 'mysql', url } });

let db: TestDatabase;
let maria: TestMariaDatabase;
let proxy: TcpProxy;
let hook: Receiver;
let web: DeployedWeb;
let worker: DeployedProcess;
let token: string;

describe("the worker's endpoint store down", () => {
  before(async () => {
    db = await createTestDatabase();
    maria = await createMariaDatabase();
    proxy = await startTcpProxy(maria.url);
    hook = await receiver();
    web = await startWebProcess({
      DATABASE_URL: db.url,
      APP_SECRET,
      APP_STORES: storesAt(maria.url),
      APP_WEBHOOKS__STORE: 'registry',
    });
    await eventually(
      async () => (await call('GET', `${web.base}/readyz`)).status === 200,
      20_000,
      'the web process to be ready',
    );
    token = await operatorToken(db.url, APP_SECRET);
  });
  after(async () => {
    await stopDeployment();
    await closeAll();
    await proxy.close();
  });

  it('a worker started while its store refuses connections starts all the same', async () => {
    await proxy.cut();
    worker = await startWorkerProcess({
      DATABASE_URL: db.url,
      APP_SECRET,
      APP_STORES: storesAt(proxy.url),
      APP_WEBHOOKS__STORE: 'registry',
      // a failed run is taken up again after the first backoff, at the next sweep
      APP_WEBHOOKS__BACKOFF__BASE: '100ms',
      APP_WORKER__HEARTBEAT: '200ms',
      APP_WORKER__STALE_AFTER: '1s',
    });
    assert.equal(worker.spawned.child.exitCode, null, worker.spawned.output());
  });

  it('a delivery taken up while the store is down waits; once the store answers, the same worker sends it, signed, with its header', async () => {
    const created = await call('POST', `${web.base}/api/v1/webhooks`, {
      token,
      body: { url: hook.url, events: ['order.*'], owner: 'acme', headers: { 'X-Api-Key': 'sekret-123' } },
    });
    assert.equal(created.status, 201, created.text);
    const emitted = await call('POST', `${web.base}/api/v1/events`, {
      token,
      body: { type: 'order.created', data: { order: 1 }, owner: 'acme' },
    });
    assert.equal(emitted.body.deliveryCount, 1, emitted.text);
    const [deliveryId] = emitted.body.deliveryIds as string[];

    await worker.spawned.waitFor(/endpoint store \\?"registry\\?" \(mysql\) did not answer: getMany/, 20_000);
    assert.equal(hook.requests.length, 0, 'nothing is sent while the endpoint cannot be read');
    const waiting = await call('GET', `${web.base}/api/v1/deliveries/${deliveryId}`, { token });
    assert.notEqual(waiting.body.status, 'done');
    assert.notEqual(waiting.body.status, 'dead', 'an unreachable store is no failed attempt');

    await proxy.restore();
    const request = await eventually(
      () => hook.requests.find((received) => received.headers['webhook-id'] === deliveryId),
      30_000,
      'the delivery once the store answers',
    );
    const payload = new Webhook(created.body.secret).verify(
      request.body,
      request.headers as Record<string, string>,
    ) as Record<string, unknown>;
    assert.deepEqual(payload.data, { order: 1 });
    assert.equal(request.headers['x-api-key'], 'sekret-123');
    const done = await eventually(
      async () => {
        const answer = await call('GET', `${web.base}/api/v1/deliveries/${deliveryId}`, { token });
        return answer.body?.status === 'done' ? answer : undefined;
      },
      20_000,
      'the delivery to be done',
    );
    assert.equal(done.body.attempts.length, 1, 'one attempt: the waits while the store was down were none');
    assert.equal(
      hook.requests.filter((received) => received.headers['webhook-id'] === deliveryId).length,
      1,
      'sent once',
    );
    assert.equal(worker.spawned.child.exitCode, null, 'the same process, never restarted');
  });
});
