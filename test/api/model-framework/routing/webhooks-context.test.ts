/**
 * `ctx.webhooks` in a deployment's own controllers (test/fixtures/webhooks-app, discovered as the
 * web process discovers `api/model-framework/`), over real HTTP with real API tokens: the core's
 * functions run as the request's caller, so its role and tenant decide (403 `APP_FORBIDDEN`,
 * 404 `APP_TENANT_NOT_FOUND`) exactly as in the webhook API, a caller without credentials may do
 * nothing, and emits read the web process's own endpoint cache.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import postgres from 'postgres';
import { discoverApi } from '../../../../api/model-framework/routing/discover.ts';
import { createWebServer, type WebServer } from '../../../../api/server.ts';
import type { Sql } from '../../../../shared/db/connect.ts';
import { createToken } from '../../../../shared/tokens/tokens.ts';
import type { Role } from '../../../../shared/tokens/roles.ts';
import { createTestDatabase, type TestDatabase } from '../../../helpers/database.ts';
import { eventually } from '../../../helpers/poll.ts';

const APP = new URL('../../../fixtures/webhooks-app/', import.meta.url);

interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

describe('ctx.webhooks in an application controller', () => {
  let db: TestDatabase;
  let web: WebServer;
  let base: string;
  /** Every statement the web process's pool sent, in order. */
  const statements: string[] = [];
  const tokens = new Map<string, string>();

  before(async () => {
    db = await createTestDatabase();
    const config = db.configWith({});
    const sql = postgres(db.url, {
      max: 4,
      onnotice: () => {},
      transform: { undefined: null },
      debug: (_connection, query) => statements.push(query),
    }) as unknown as Sql;
    const api = await discoverApi({
      models: new URL('models/', APP),
      controllers: new URL('controllers/', APP),
      routes: new URL('routes.ts', APP),
    });
    web = createWebServer({ config, log: db.log, sql, stores: [], api });
    base = `http://127.0.0.1:${(await web.start(0)).port}`;
  });
  after(() => web?.shutdown('test'));

  /** A token of `role` (bound to `owner` unless admin), made once per role and owner. */
  async function token(role: Role, owner?: string): Promise<string> {
    const key = `${role} ${owner ?? ''}`;
    let text = tokens.get(key);
    if (text === undefined) {
      const created = await createToken(db, { name: key.trim(), role, ...(role === 'admin' ? {} : { owner }) });
      text = created.token;
      tokens.set(key, text);
    }
    return text;
  }

  /** POST `path` with a JSON body, as the holder of `bearer` (none: anonymous). */
  async function post(path: string, body: unknown, bearer?: string): Promise<Answer> {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: {
        Accept: 'application/json',
        'Content-Type': 'application/json',
        ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  /** `ctx.webhooks.<name>(...args)` run by the fixture's calls controller. */
  const call = (name: string, args: unknown[], bearer?: string) =>
    post(`/shop/webhook-calls/${name}`, { args }, bearer);

  const url = (path: string) => `http://127.0.0.1:9/${path}`;

  const deliveryRows = (ids: string[]) =>
    db.sql<{ id: string; endpoint_id: string; owner: string | null; event_type: string }[]>`
      select id, endpoint_id, owner, event_type from app_webhook_deliveries where id = any(${ids}) order by id`;

  const counts = async () => {
    const [row] = await db.sql<{ endpoints: number; deliveries: number }[]>`
      select (select count(*)::int from app_webhooks) as endpoints,
             (select count(*)::int from app_webhook_deliveries) as deliveries`;
    return row;
  };

  const refused = (answer: Answer, status: number, code: string) => {
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    assert.equal(answer.body.code, code, JSON.stringify(answer.body));
  };

  it('an admin registers an endpoint for a tenant and emits to it: the delivery is written for that endpoint', async () => {
    const admin = await token('admin');
    const created = await post('/shop/order-hooks', { url: url('admin'), owner: 'acme' }, admin);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.owner, 'acme');
    assert.match(created.body.secret, /^whsec_/);

    const emitted = await post('/shop/orders', { total: 12, owner: 'acme' }, admin);
    assert.equal(emitted.status, 202, JSON.stringify(emitted.body));
    assert.equal(emitted.body.deliveries.length, 1);
    assert.deepEqual(
      (await deliveryRows(emitted.body.deliveries)).map(({ endpoint_id, owner, event_type }) => ({
        endpoint_id,
        owner,
        event_type,
      })),
      [{ endpoint_id: created.body.id, owner: 'acme', event_type: 'order.created' }],
    );
  });

  it("a member registers and emits for its own tenant without naming it: the token's tenant is the owner", async () => {
    const member = await token('member', 'tenant-m');
    const created = await post('/shop/order-hooks', { url: url('member') }, member);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.owner, 'tenant-m');

    const emitted = await post('/shop/orders', { total: 3 }, member);
    assert.equal(emitted.status, 202, JSON.stringify(emitted.body));
    const rows = await deliveryRows(emitted.body.deliveries);
    assert.deepEqual(
      rows.map((row) => [row.endpoint_id, row.owner]),
      [[created.body.id, 'tenant-m']],
    );
  });

  it('a viewer may not register or emit (403 APP_FORBIDDEN, nothing written) but reads its own tenant', async () => {
    const admin = await token('admin');
    const own = await post('/shop/order-hooks', { url: url('viewer-own'), owner: 'tenant-v' }, admin);
    await post('/shop/order-hooks', { url: url('viewer-other'), owner: 'tenant-w' }, admin);
    const viewer = await token('viewer', 'tenant-v');
    const before = await counts();

    const register = await post('/shop/order-hooks', { url: url('viewer') }, viewer);
    refused(register, 403, 'APP_FORBIDDEN');
    assert.deepEqual(register.body.data, { operation: 'endpoints.register', role: 'viewer' });
    const emit = await post('/shop/orders', { total: 1 }, viewer);
    refused(emit, 403, 'APP_FORBIDDEN');
    assert.equal(emit.body.data.operation, 'events.emit');
    refused(await call('rotate', [own.body.id], viewer), 403, 'APP_FORBIDDEN');
    assert.deepEqual(await counts(), before);

    const listed = await call('list', [], viewer);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(
      listed.body.result.map((endpoint: { id: string }) => endpoint.id),
      [own.body.id],
    );
  });

  it('a member of one tenant cannot register or emit for another: the core answers 404 APP_TENANT_NOT_FOUND', async () => {
    const admin = await token('admin');
    const theirs = await post('/shop/order-hooks', { url: url('tenant-b'), owner: 'tenant-b' }, admin);
    const member = await token('member', 'tenant-a');
    const before = await counts();

    const register = await post('/shop/order-hooks', { url: url('tenant-a'), owner: 'tenant-b' }, member);
    refused(register, 404, 'APP_TENANT_NOT_FOUND');
    refused(await post('/shop/orders', { total: 1, owner: 'tenant-b' }, member), 404, 'APP_TENANT_NOT_FOUND');
    refused(await call('list', [{ owner: 'tenant-b' }], member), 404, 'APP_TENANT_NOT_FOUND');
    // another tenant's endpoint answers exactly like one that does not exist
    refused(await call('show', [theirs.body.id], member), 404, 'APP_WEBHOOK_NOT_FOUND');
    refused(await call('disable', [theirs.body.id], member), 404, 'APP_WEBHOOK_NOT_FOUND');
    assert.deepEqual(await counts(), before);
  });

  it('a caller without credentials may do nothing: every function is refused with 403 APP_FORBIDDEN', async () => {
    const admin = await token('admin');
    const endpoint = await post('/shop/order-hooks', { url: url('anonymous'), owner: 'acme' }, admin);
    const id = endpoint.body.id as string;
    const before = await counts();

    refused(await post('/shop/order-hooks', { url: url('anonymous-own'), owner: 'acme' }), 403, 'APP_FORBIDDEN');
    refused(await post('/shop/orders', { total: 1, owner: 'acme' }), 403, 'APP_FORBIDDEN');
    const attempts: Array<[string, unknown[]]> = [
      ['register', [{ url: url('anonymous-call'), events: ['*'] }]],
      ['emit', ['order.created', { total: 1 }]],
      ['emit', ['order.created', { total: 1 }, { owner: 'acme' }]],
      ['rotate', [id, { grace: 60_000 }]],
      ['send', [id, 'order.created', { total: 1 }]],
      ['update', [id, { description: 'changed' }]],
      ['disable', [id]],
      ['enable', [id]],
      ['remove', [id]],
      ['list', []],
      ['show', [id]],
      ['show', [id, { reveal: true }]],
      ['status', []],
    ];
    for (const [name, args] of attempts) {
      const answer = await call(name, args);
      assert.equal(answer.status, 403, `${name}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.code, 'APP_FORBIDDEN', name);
      assert.equal(answer.body.data.role, 'anonymous', name);
    }
    assert.deepEqual(await counts(), before);
    const [row] = await db.sql<{ disabled_at: Date | null; description: string | null }[]>`
      select disabled_at, description from app_webhooks where id = ${id}`;
    assert.deepEqual(row, { disabled_at: null, description: null });
  });

  it("every function acts as the caller: a member changes, sends to and removes its own tenant's endpoint", async () => {
    const member = await token('member', 'tenant-r');
    const created = await post('/shop/order-hooks', { url: url('member-all') }, member);
    const id = created.body.id as string;

    const rotated = await call('rotate', [id, { grace: 60_000 }], member);
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.notEqual(rotated.body.result.secret, created.body.secret);
    assert.ok(rotated.body.result.graceEndsAt, 'the old secret signs during the grace period');

    const updated = await call('update', [id, { events: ['order.*', 'invoice.*'] }], member);
    assert.deepEqual(updated.body.result.events, ['order.*', 'invoice.*']);
    assert.ok((await call('disable', [id, { reason: 'paused' }], member)).body.result.disabledAt);
    assert.equal((await call('enable', [id], member)).body.result.disabledAt, null);

    const sent = await call('send', [id, 'invoice.paid', { amount: 1 }], member);
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.deepEqual(
      (await deliveryRows([sent.body.result.id])).map((row) => [row.endpoint_id, row.owner, row.event_type]),
      [[id, 'tenant-r', 'invoice.paid']],
    );

    assert.equal((await call('show', [id], member)).body.result.id, id);
    const statuses = await call('status', [], member);
    assert.deepEqual(
      statuses.body.result.map((endpoint: { id: string }) => endpoint.id),
      [id],
    );
    assert.deepEqual((await call('remove', [id], member)).body.result, { id, removed: true });
    refused(await call('show', [id], member), 404, 'APP_WEBHOOK_NOT_FOUND');
  });

  it("docs/models.md's example controller is the one these tests run", async () => {
    const page = await readFile(new URL('../../../../docs/models.md', import.meta.url), 'utf8');
    const shown = /```ts\n\/\/ api\/model-framework\/controllers\/orders\.ts\n([\s\S]*?)```/.exec(page)?.[1];
    assert.ok(shown, 'docs/models.md shows api/model-framework/controllers/orders.ts');
    const fixture = (await readFile(new URL('controllers/orders.ts', APP), 'utf8'))
      .replace(/^\/\*\*[\s\S]*?\*\/\n/, '')
      .replace('../../../../api/model-framework/routing/controller.ts', '../routing/controller.ts');
    assert.equal(shown, fixture);
  });

  describe("emits read the web process's endpoint cache", () => {
    const table = () => db.config.webhooks.table;
    /** The statements `run` made the pool send that read or write the endpoint table. */
    async function endpointStatementsDuring(run: () => Promise<unknown>): Promise<string[]> {
      const start = statements.length;
      await run();
      return statements.slice(start).filter((text) => text.includes(`"${table()}"`));
    }

    it('what the webhook API registered and cached is what ctx.webhooks emits to, without reading the table', async () => {
      const admin = await token('admin');
      const rest = async (path: string, body: unknown) => {
        const response = await fetch(`${base}/api/v1${path}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as { externalId: string } };
      };
      // Each attempt takes a tenant of its own, whose first emit through ctx.webhooks is the one
      // checked: a cache of its own would have to read the table then, every time. The registration's
      // change notice may reach the process after the webhook API's emits were answered from the
      // cache and drop the entry again; another attempt is made then.
      const attempts: string[][] = [];
      for (let attempt = 1; attempt <= 5; attempt += 1) {
        const owner = `tenant-cache-${attempt}`;
        const registered = await rest('/webhooks', { url: url('cached'), events: ['order.*'], owner });
        assert.equal(registered.status, 201);
        // the webhook API's emits fill the process's cache once it listens for changes
        await eventually(
          async () =>
            (await endpointStatementsDuring(() => rest('/events', { type: 'order.created', owner }))).length === 0,
          10_000,
          "the webhook API's emit to be answered from the endpoint cache",
        );
        let emitted!: Answer;
        const read = await endpointStatementsDuring(async () => {
          emitted = await post('/shop/orders', { total: 7, owner }, admin);
        });
        assert.equal(emitted.status, 202, JSON.stringify(emitted.body));
        assert.deepEqual(
          (await deliveryRows(emitted.body.deliveries)).map((row) => row.endpoint_id),
          [registered.body.externalId],
        );
        attempts.push(read);
        if (read.length === 0) break;
      }
      assert.deepEqual(attempts.at(-1), [], 'the emit was answered from the cache the webhook API filled');
    });

    it('an endpoint registered through ctx.webhooks.register receives the next emit, with no wait', async () => {
      const admin = await token('admin');
      // the tenant's (empty) endpoint list is cached first
      await eventually(
        async () =>
          (await endpointStatementsDuring(() => post('/shop/orders', { total: 1, owner: 'tenant-next' }, admin)))
            .length === 0,
        10_000,
        'the emit to be answered from the endpoint cache',
      );
      const created = await post('/shop/order-hooks', { url: url('next'), owner: 'tenant-next' }, admin);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const emitted = await post('/shop/orders', { total: 2, owner: 'tenant-next' }, admin);
      assert.deepEqual(
        (await deliveryRows(emitted.body.deliveries)).map((row) => row.endpoint_id),
        [created.body.id],
      );
    });
  });
});
