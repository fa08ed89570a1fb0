/**
 * The life of an endpoint whose table lives in a store other than the service's PostgreSQL,
 * seen only from outside: the web and worker processes started as a deployer starts them,
 * configured by their environment (`APP_STORES`, `APP_WEBHOOKS__STORE`), a receiver on the
 * loopback, and REST and GraphQL calls with an admin token. Register, emit (the worker signs and
 * delivers; the receiver verifies with the standardwebhooks library), rotate with grace,
 * disable and enable, a 410 from the receiver (the worker disables the endpoint: a write to the
 * store from the other process), list and show, then what the store holds at rest (never a secret or a
 * header value in plain text; the record in the store, not in PostgreSQL, and its gate row in
 * PostgreSQL), and removal. Each store's test file gives the store's options and how to read
 * everything it holds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { runAppInProcess } from '../../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { startWebProcess, startWorkerProcess, stopDeployment, type DeployedWeb } from '../../helpers/deployment.ts';
import { eventually } from '../../helpers/poll.ts';
import { call, closeAll, receiver, type Answer, type Received, type Receiver } from './helpers.ts';

/** The application secret of the processes: signing secrets and header values are sealed under it. */
export const APP_SECRET = 'end-to-end application secret of at least 32 characters';
/** A header value a receiver would treat as a credential. */
const API_KEY = 'sekret-123';
const OWNER = 'acme';

export interface StoreUnderTest {
  /** `stores.registry` of the configuration, as `APP_STORES` carries it. */
  options: { adapter: string; url?: string; path?: string };
  /** Everything the store holds, as text: every column of every row, or every file's content. */
  atRest(): Promise<string>;
}

/** The text forms a signing secret (`whsec_<base64 key>`) could be stored in without being sealed. */
function plainForms(secret: string): string[] {
  const base64 = secret.slice('whsec_'.length);
  const key = Buffer.from(base64, 'base64');
  return [secret, base64, key.toString('base64url'), key.toString('hex')];
}

/** The token of an admin, made as an operator makes it: `app tokens:create --role admin`. */
async function adminToken(db: TestDatabase): Promise<string> {
  const run = await runAppInProcess(['tokens:create', '--name', 'deployer', '--role', 'admin', '--json'], {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    APP_SECRET,
  });
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout).token;
}

/**
 * Describes the scenario for one store. `setUp` makes the store's place (a database, a
 * directory) before the processes start.
 */
export function describeStoreEndToEnd(adapter: string, setUp: () => Promise<StoreUnderTest>): void {
  describe(`the endpoint table in a ${adapter} store, end to end over HTTP`, () => {
    let db: TestDatabase;
    let store: StoreUnderTest;
    let web: DeployedWeb;
    let hook: Receiver;
    let token: string;
    let api: string;
    let endpoint: { externalId: string; secret: string };
    /** Every signing secret the endpoint was given, oldest first. */
    const secrets: string[] = [];
    /** Deliveries made to it, for the check that removal takes them away. */
    const deliveryIds: string[] = [];

    before(async () => {
      db = await createTestDatabase();
      store = await setUp();
      hook = await receiver();
      const env = {
        DATABASE_URL: db.url,
        APP_SECRET,
        APP_STORES: JSON.stringify({ registry: store.options }),
        APP_WEBHOOKS__STORE: 'registry',
      };
      web = await startWebProcess(env);
      await startWorkerProcess(env);
      api = `${web.base}/api/v1`;
      token = await adminToken(db);
    });
    after(async () => {
      await stopDeployment();
      await closeAll();
    });

    const emit = (type: string, data: unknown) =>
      call('POST', `${api}/events`, { token, body: { type, data, owner: OWNER } });

    /** Emits one event that reaches the endpoint; answers the request the receiver got and the delivery id. */
    async function deliverOne(type: string, data: unknown): Promise<{ request: Received; deliveryId: string }> {
      const emitted = await emit(type, data);
      assert.equal(emitted.status, 202, emitted.text);
      assert.equal(emitted.body.deliveryCount, 1, emitted.text);
      const [deliveryId] = emitted.body.deliveryIds as string[];
      deliveryIds.push(deliveryId);
      const request = await eventually(
        () => hook.requests.find((received) => received.headers['webhook-id'] === deliveryId),
        20_000,
        `the receiver to get delivery ${deliveryId}`,
      );
      await eventually(
        async () => (await call('GET', `${api}/deliveries/${deliveryId}`, { token })).body?.status === 'done',
        20_000,
        `delivery ${deliveryId} to be done`,
      );
      return { request, deliveryId };
    }

    const verify = (secret: string, request: Received) =>
      new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Record<string, unknown>;

    it(`readiness lists the store under its name with its adapter, and answers 200 once the table is installed`, async () => {
      const ready = await eventually(
        async () => {
          const answer = await call('GET', `${web.base}/readyz`);
          return answer.status === 200 ? answer : undefined;
        },
        20_000,
        '/readyz to answer 200',
      );
      assert.equal(ready.body.stores.registry.adapter, adapter);
      assert.equal(ready.body.stores.registry.ok, true);
      assert.equal(ready.body.stores.default.adapter, 'postgresql', "the service's own database, listed apart");
    });

    it('registers an endpoint over REST with a header credential; the secret comes once', async () => {
      const created = await call('POST', `${api}/webhooks`, {
        token,
        body: {
          url: hook.url,
          events: ['order.*'],
          owner: OWNER,
          description: `orders in ${adapter}`,
          headers: { 'X-Api-Key': API_KEY },
        },
      });
      assert.equal(created.status, 201, created.text);
      assert.match(created.body.secret, /^whsec_/);
      assert.equal(created.body.owner, OWNER);
      assert.deepEqual(created.body.headers, { 'X-Api-Key': null }, 'header values are not shown unless revealed');
      endpoint = created.body;
      secrets.push(created.body.secret);
    });

    it('an emit over REST is delivered by the worker, signed and with the header, as the standardwebhooks library verifies', async () => {
      const { request, deliveryId } = await deliverOne('order.created', { order: 1 });
      const payload = verify(endpoint.secret, request);
      assert.deepEqual(payload, {
        id: deliveryId,
        type: 'order.created',
        timestamp: payload.timestamp,
        data: { order: 1 },
      });
      assert.equal(request.headers['x-api-key'], API_KEY, 'the header value, opened by the worker from the store');
      assert.equal(request.path, '/hook');
    });

    it('rotates over REST with grace: a delivery carries both signatures, each secret verifies it; the new one alone does too', async () => {
      const rotated = await call('POST', `${api}/webhooks/${endpoint.externalId}/rotate`, {
        token,
        body: { grace: 600_000 },
      });
      assert.equal(rotated.status, 200, rotated.text);
      assert.match(rotated.body.secret, /^whsec_/);
      assert.notEqual(rotated.body.secret, endpoint.secret);
      assert.ok(Date.parse(rotated.body.graceEndsAt) > Date.now());
      secrets.push(rotated.body.secret);

      const { request } = await deliverOne('order.paid', { order: 2 });
      const signatures = String(request.headers['webhook-signature']).split(' ');
      assert.equal(
        signatures.length,
        2,
        `two signatures while the grace lasts: ${request.headers['webhook-signature']}`,
      );
      assert.deepEqual(verify(rotated.body.secret, request).data, { order: 2 }, 'the new secret verifies');
      assert.deepEqual(verify(endpoint.secret, request).data, { order: 2 }, 'the old secret verifies during the grace');
      assert.throws(
        () => verify(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, request),
        'another secret does not',
      );
      endpoint = { ...endpoint, secret: rotated.body.secret };
    });

    it('disabled, the endpoint gets no delivery from the next emit; enabled again, it does', async () => {
      const disabled = await call('PATCH', `${api}/webhooks/${endpoint.externalId}`, {
        token,
        body: { enabled: false, disabledReason: 'maintenance', description: 'paused' },
      });
      assert.equal(disabled.status, 200, disabled.text);
      assert.equal(disabled.body.enabled, false);
      assert.equal(disabled.body.disabledReason, 'maintenance');

      const received = hook.requests.length;
      const missed = await emit('order.shipped', { order: 3 });
      assert.equal(missed.status, 202, missed.text);
      assert.equal(missed.body.deliveryCount, 0, missed.text);
      assert.equal(missed.body.externalId, null, 'no endpoint matched: nothing written');
      const [{ count }] = await db.sql<{ count: number }[]>`
        select count(*)::int as count from app_webhook_deliveries where endpoint_id = ${endpoint.externalId}`;
      assert.equal(count, deliveryIds.length, 'no delivery row for the disabled endpoint');

      const enabled = await call('PATCH', `${api}/webhooks/${endpoint.externalId}`, { token, body: { enabled: true } });
      assert.equal(enabled.status, 200, enabled.text);
      assert.equal(enabled.body.enabled, true);
      const { request } = await deliverOne('order.shipped', { order: 4 });
      assert.deepEqual(verify(endpoint.secret, request).data, { order: 4 });
      assert.equal(hook.requests.length, received + 1, 'only the emit after enabling reached the receiver');
    });

    it('a filter set over REST is kept by the store and decides the emits; null removes it', async () => {
      const filter = { 'data.order': { $gte: 100 }, $or: [{ type: 'order.shipped' }, { 'data.rush': true }] };
      const set = await call('PATCH', `${api}/webhooks/${endpoint.externalId}`, { token, body: { filter } });
      assert.equal(set.status, 200, set.text);
      assert.deepEqual(set.body.filter, filter);
      const received = hook.requests.length;
      const left = await emit('order.shipped', { order: 7 });
      assert.equal(left.status, 202, left.text);
      assert.equal(left.body.deliveryCount, 0, left.text);
      assert.equal(left.body.filteredOut, 1, 'its filter left it out');
      const { request } = await deliverOne('order.shipped', { order: 100 });
      assert.deepEqual(verify(endpoint.secret, request).data, { order: 100 });
      assert.equal(hook.requests.length, received + 1, 'only the event its filter lets through reached the receiver');
      const removed = await call('PATCH', `${api}/webhooks/${endpoint.externalId}`, { token, body: { filter: null } });
      assert.equal(removed.status, 200, removed.text);
      assert.equal(removed.body.filter, null);
    });

    it('a receiver answering 410: the worker disables the endpoint in the store, and the web process reads it so', async () => {
      hook.answer(410);
      const emitted = await emit('order.cancelled', { order: 5 });
      assert.equal(emitted.body.deliveryCount, 1, emitted.text);
      deliveryIds.push(...(emitted.body.deliveryIds as string[]));
      const gone = await eventually(
        async () => {
          const shown = await call('GET', `${api}/webhooks/${endpoint.externalId}`, { token });
          return shown.body?.enabled === false ? shown : undefined;
        },
        20_000,
        'the endpoint to be disabled by the worker',
      );
      assert.match(gone.body.disabledReason, /410 Gone/);
      hook.answer(200);
      const enabled = await call('PATCH', `${api}/webhooks/${endpoint.externalId}`, { token, body: { enabled: true } });
      assert.equal(enabled.body.enabled, true, enabled.text);
      const { request } = await deliverOne('order.cancelled', { order: 6 });
      assert.deepEqual(verify(endpoint.secret, request).data, { order: 6 });
    });

    it('REST lists and shows it, with its two secrets (dates only) and, revealed, its header value', async () => {
      const listed = await call('GET', `${api}/webhooks?owner=${OWNER}`, { token });
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        listed.body._embedded.webhooks.map((webhook: { externalId: string }) => webhook.externalId),
        [endpoint.externalId],
      );
      const byEvent = await call('GET', `${api}/webhooks?events=order.refunded&enabled=true`, { token });
      assert.deepEqual(
        byEvent.body._embedded.webhooks.map((webhook: { externalId: string }) => webhook.externalId),
        [endpoint.externalId],
        'the pattern filter runs in the store',
      );
      const shown = await call('GET', `${api}/webhooks/${endpoint.externalId}?reveal=headers`, { token });
      assert.equal(shown.status, 200, shown.text);
      assert.equal(shown.body.url, hook.url);
      assert.deepEqual(shown.body.events, ['order.*']);
      assert.equal(shown.body.description, 'paused');
      assert.deepEqual(shown.body.headers, { 'X-Api-Key': API_KEY });
      assert.equal(shown.body.secrets.length, 2);
      assert.equal(JSON.stringify(shown.body).includes('whsec_'), false, 'never a secret in a shown endpoint');
    });

    it('GraphQL lists and shows it from the same store', async () => {
      const answer = await call('POST', `${web.base}/_app/gql`, {
        token,
        headers: { Accept: 'application/json' },
        body: {
          query: `query($id: ID!) {
            webhookEndpoints(filter: {owner: "${OWNER}"}) { nodes { externalId url enabled } total }
            webhookEndpoint(id: $id) { externalId url owner events description headers(reveal: true) }
          }`,
          variables: { id: endpoint.externalId },
        },
      });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.errors, undefined, answer.text);
      assert.deepEqual(answer.body.data.webhookEndpoints, {
        nodes: [{ externalId: endpoint.externalId, url: hook.url, enabled: true }],
        total: 1,
      });
      assert.deepEqual(answer.body.data.webhookEndpoint, {
        externalId: endpoint.externalId,
        url: hook.url,
        owner: OWNER,
        events: ['order.*'],
        description: 'paused',
        headers: { 'X-Api-Key': API_KEY },
      });
    });

    it('at rest: the record is in the store with its secrets and header sealed, nothing of it in plain text; PostgreSQL holds only its gate row', async () => {
      const text = await store.atRest();
      assert.ok(text.includes(endpoint.externalId), 'the record is in the store');
      assert.ok(text.includes(hook.url), 'the url is stored as it is');
      assert.equal(text.match(/enc:v1:/g)?.length, 3, 'two signing secrets and one header value, each sealed');
      assert.equal(text.includes('whsec_'), false, 'no signing secret in plain text');
      for (const secret of secrets) {
        for (const form of plainForms(secret)) assert.equal(text.includes(form), false, `no form of a secret: ${form}`);
      }
      assert.equal(text.includes(API_KEY), false, 'no header value in plain text');
      assert.equal(text.includes('X-Api-Key'), true, 'the header name is stored readable');

      const own = await db.sql<{ id: string }[]>`select id from app_webhooks`;
      assert.deepEqual(
        own.map((row) => row.id),
        [],
        "nothing in the service database's endpoint table",
      );
      const [gate] = await db.sql<{ owner: string | null; disabled_at: Date | null; version: number }[]>`
        select owner, disabled_at, version from app_endpoint_gate where endpoint_id = ${endpoint.externalId}`;
      assert.equal(gate?.owner, OWNER, 'the gate row mirrors the owner');
      assert.equal(gate.disabled_at, null, 'and that it is enabled');
      // create, rotate, disable, enable, set and remove a filter, the worker's disable after the 410, enable
      assert.equal(gate.version, 8, 'and the version of the last write');
    });

    it('removed over REST: gone from the store and the gate, its deliveries with it; a further emit reaches nothing', async () => {
      const removed = await call('DELETE', `${api}/webhooks/${endpoint.externalId}`, { token });
      assert.equal(removed.status, 204, removed.text);
      assert.equal((await call('GET', `${api}/webhooks/${endpoint.externalId}`, { token })).status, 404);
      for (const id of deliveryIds) {
        const delivery: Answer = await call('GET', `${api}/deliveries/${id}`, { token });
        assert.equal(delivery.status, 404, `delivery ${id} went with its endpoint`);
      }
      const [{ deliveries, gates }] = await db.sql<{ deliveries: number; gates: number }[]>`
        select (select count(*)::int from app_webhook_deliveries where endpoint_id = ${endpoint.externalId}) as deliveries,
               (select count(*)::int from app_endpoint_gate where endpoint_id = ${endpoint.externalId}) as gates`;
      assert.deepEqual({ deliveries, gates }, { deliveries: 0, gates: 0 });
      assert.equal((await store.atRest()).includes(endpoint.externalId), false, 'the record left the store');

      const received = hook.requests.length;
      const emitted = await emit('order.created', { order: 7 });
      assert.equal(emitted.status, 202, emitted.text);
      assert.equal(emitted.body.deliveryCount, 0, emitted.text);
      assert.equal(hook.requests.length, received);
    });
  });
}
