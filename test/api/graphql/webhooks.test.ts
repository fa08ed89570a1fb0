import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createToken } from '../../../shared/tokens/tokens.ts';
import type { TestApp } from '../fixtures/app.ts';
import { as, post, startGraphqlApp, type GraphqlAnswer } from './fixtures.ts';

const ADMIN = as('admin');
const ACME = as('member', 'acme');
const GLOBEX = as('member', 'globex');
const ACME_VIEWER = as('viewer', 'acme');

const REGISTER = /* GraphQL */ `
  mutation Register($input: RegisterWebhookEndpointInput!) {
    registerWebhookEndpoint(input: $input) { secret endpoint { id url owner events enabled } }
  }`;

/** The first error's code. */
const code = (answer: GraphqlAnswer) => answer.body.errors?.[0]?.extensions?.code;

let app: TestApp;
/** Endpoint ids by tenant. */
const endpoints: Record<string, string[]> = { acme: [], globex: [] };

async function register(headers: Record<string, string>, input: Record<string, unknown>): Promise<GraphqlAnswer> {
  return post(app, REGISTER, { headers, variables: { input: { events: ['order.*'], ...input } } });
}

before(async () => {
  app = await startGraphqlApp();
  for (const [owner, count] of [
    ['acme', 3],
    ['globex', 2],
  ] as const) {
    for (let i = 0; i < count; i += 1) {
      const answer = await register(ADMIN, { url: `http://127.0.0.1:9/${owner}/${i}`, owner });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      endpoints[owner].push((answer.body.data!.registerWebhookEndpoint as { endpoint: { id: string } }).endpoint.id);
    }
  }
});

describe('GraphQL webhooks: the same operations as REST, through the same core functions', () => {
  it('registering answers the endpoint and its whsec_ secret; a member registers for its own tenant', async () => {
    const answer = await register(ACME, { url: 'http://127.0.0.1:9/acme/extra', description: 'extra' });
    const registered = answer.body.data?.registerWebhookEndpoint as {
      secret: string;
      endpoint: { id: string; owner: string; enabled: boolean };
    };
    assert.match(registered.secret, /^whsec_/);
    assert.equal(registered.endpoint.owner, 'acme');
    assert.equal(registered.endpoint.enabled, true);
    const removed = await post(app, 'mutation($id: ID!) { removeWebhookEndpoint(id: $id) }', {
      headers: ACME,
      variables: { id: registered.endpoint.id },
    });
    assert.equal(removed.body.data?.removeWebhookEndpoint, registered.endpoint.id);
  });

  it("a refused registration is a field error carrying the core's code (422 APP_WEBHOOK_*), never a 500", async () => {
    const answer = await register(ADMIN, { url: 'ftp://example.test/x' });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.data, null);
    assert.match(String(code(answer)), /^APP_WEBHOOK_/);
    assert.equal(answer.body.errors?.[0]?.extensions?.status, 422);
  });

  it('pages of endpoints with filters; rotate answers a new secret with its grace end', async () => {
    const page = await post(
      app,
      '{ webhookEndpoints(perPage: 2, filter: {owner: "acme"}) { nodes { id owner } page perPage total pages } }',
      { headers: ADMIN },
    );
    assert.deepEqual(
      { ...(page.body.data?.webhookEndpoints as object), nodes: undefined },
      { nodes: undefined, page: 1, perPage: 2, total: 3, pages: 2 },
    );
    const rotated = await post(
      app,
      'mutation($id: ID!) { rotateWebhookSecret(id: $id, grace: 60000) { secret graceEndsAt endpoint { id } } }',
      {
        headers: ACME,
        variables: { id: endpoints.acme[0] },
      },
    );
    const result = rotated.body.data?.rotateWebhookSecret as {
      secret: string;
      graceEndsAt: string;
      endpoint: { id: string };
    };
    assert.match(result.secret, /^whsec_/);
    assert.ok(Date.parse(result.graceEndsAt) > Date.now());
    assert.equal(result.endpoint.id, endpoints.acme[0]);
  });

  it('bad page arguments are refused as REST refuses them (APP_PAGINATION_INVALID)', async () => {
    const answer = await post(app, '{ webhookEndpoints(page: 0) { total } }', { headers: ADMIN });
    assert.equal(code(answer), 'APP_PAGINATION_INVALID');
  });
});

describe("GraphQL webhooks: tenant isolation (a member cannot read or change another tenant's records)", () => {
  it('a member lists only its own endpoints, and naming another owner is APP_TENANT_NOT_FOUND', async () => {
    const mine = await post(app, '{ webhookEndpoints { total nodes { owner } } }', { headers: ACME });
    const page = mine.body.data?.webhookEndpoints as { total: number; nodes: Array<{ owner: string }> };
    assert.equal(page.total, 3);
    assert.ok(page.nodes.every((node) => node.owner === 'acme'));
    const other = await post(app, '{ webhookEndpoints(filter: {owner: "globex"}) { total } }', { headers: ACME });
    assert.equal(code(other), 'APP_TENANT_NOT_FOUND');
  });

  it("another tenant's endpoint reads and changes exactly like one that does not exist (APP_WEBHOOK_NOT_FOUND)", async () => {
    const id = endpoints.globex[0];
    const read = await post(app, 'query($id: ID!) { webhookEndpoint(id: $id) { id } }', {
      headers: ACME,
      variables: { id },
    });
    assert.equal(read.body.data?.webhookEndpoint, null);
    assert.equal(code(read), 'APP_WEBHOOK_NOT_FOUND');
    for (const mutation of [
      'mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: {description: "mine now"}) { id } }',
      'mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }',
      'mutation($id: ID!) { removeWebhookEndpoint(id: $id) }',
      'mutation($id: ID!) { sendTestWebhookEvent(id: $id) { id } }',
    ]) {
      const answer = await post(app, mutation, { headers: ACME, variables: { id } });
      assert.equal(code(answer), 'APP_WEBHOOK_NOT_FOUND', mutation);
    }
    const still = await post(app, 'query($id: ID!) { webhookEndpoint(id: $id) { id description } }', {
      headers: GLOBEX,
      variables: { id },
    });
    assert.deepEqual(still.body.data?.webhookEndpoint, { id, description: null });
  });

  it('a member cannot register for, or move an endpoint to, another tenant', async () => {
    const answer = await register(ACME, { url: 'http://127.0.0.1:9/x', owner: 'globex' });
    assert.equal(code(answer), 'APP_TENANT_NOT_FOUND');
    const moved = await post(
      app,
      'mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: {owner: "globex"}) { id } }',
      {
        headers: ACME,
        variables: { id: endpoints.acme[1] },
      },
    );
    assert.equal(code(moved), 'APP_TENANT_NOT_FOUND');
  });

  it('a real API token (Authorization: Bearer) is the principal: a member token reaches its own tenant only', async () => {
    const { token } = await createToken(
      { sql: app.db.sql, log: app.db.log },
      { name: 'globex ci', role: 'member', owner: 'globex' },
    );
    const answer = await post(app, '{ webhookEndpoints { total nodes { owner } } }', {
      headers: { Authorization: `Bearer ${token}` },
    });
    const page = answer.body.data?.webhookEndpoints as { total: number; nodes: Array<{ owner: string }> };
    assert.equal(page.total, 2);
    assert.ok(page.nodes.every((node) => node.owner === 'globex'));
    const bad = await post(app, '{ __typename }', { headers: { Authorization: 'Bearer app_not_a_real_token' } });
    assert.equal(bad.status, 401);
  });

  it('roles as on REST: a viewer reads but may not change (APP_FORBIDDEN); no caller is APP_UNAUTHENTICATED', async () => {
    const read = await post(app, '{ webhookEndpoints { total } }', { headers: ACME_VIEWER });
    assert.equal((read.body.data!.webhookEndpoints as { total: number }).total, 3);
    const change = await post(app, 'mutation { emitWebhookEvent(input: {type: "order.created"}) { type } }', {
      headers: ACME_VIEWER,
    });
    assert.equal(code(change), 'APP_FORBIDDEN');
    const anonymous = await post(app, '{ webhookEndpoints { total } }');
    assert.equal(code(anonymous), 'APP_UNAUTHENTICATED');
  });

  it("an emit reaches only the emitting tenant's endpoints, and each tenant sees only its own events and deliveries", async () => {
    const emitted = await post(
      app,
      'mutation { emitWebhookEvent(input: {type: "order.created", data: {n: 1}}) { type owner event { id data deliveryCounts { pending total } } deliveries { id endpointId status } } }',
      {
        headers: ACME,
      },
    );
    const result = emitted.body.data?.emitWebhookEvent as {
      owner: string;
      event: { id: string; data: unknown; deliveryCounts: { total: number } };
      deliveries: Array<{ id: string; endpointId: string; status: string }>;
    };
    assert.equal(result.owner, 'acme');
    assert.deepEqual(result.event.data, { n: 1 });
    assert.equal(result.deliveries.length, 3);
    assert.ok(
      result.deliveries.every(
        (delivery) => endpoints.acme.includes(delivery.endpointId) && delivery.status === 'PENDING',
      ),
    );

    const acme = await post(app, '{ webhookDeliveries { total } webhookEvents { total } }', { headers: ACME });
    assert.deepEqual(acme.body.data, { webhookDeliveries: { total: 3 }, webhookEvents: { total: 1 } });
    const globex = await post(app, '{ webhookDeliveries { total } webhookEvents { total } }', { headers: GLOBEX });
    assert.deepEqual(globex.body.data, { webhookDeliveries: { total: 0 }, webhookEvents: { total: 0 } });
    const event = await post(app, 'query($id: ID!) { webhookEvent(id: $id) { id } }', {
      headers: GLOBEX,
      variables: { id: result.event.id },
    });
    assert.equal(code(event), 'APP_WEBHOOK_EVENT_NOT_FOUND');
    const delivery = await post(app, 'query($id: ID!) { webhookDelivery(id: $id) { id } }', {
      headers: GLOBEX,
      variables: { id: result.deliveries[0].id },
    });
    assert.equal(code(delivery), 'APP_WEBHOOK_DELIVERY_NOT_FOUND');
  });

  it('retry: only a dead delivery is sent again, only by its own tenant', async () => {
    const id = await firstDelivery(ACME);
    const early = await post(app, 'mutation($id: ID!) { retryWebhookDelivery(id: $id) { id } }', {
      headers: ACME,
      variables: { id },
    });
    assert.equal(code(early), 'APP_WEBHOOK_DELIVERY_NOT_DEAD');
    await app.db.sql`update app_webhook_deliveries set status = 'dead', completed_at = now() where id = ${id}`;
    const foreign = await post(app, 'mutation($id: ID!) { retryWebhookDelivery(id: $id) { id } }', {
      headers: GLOBEX,
      variables: { id },
    });
    assert.equal(code(foreign), 'APP_WEBHOOK_DELIVERY_NOT_FOUND');
    const retried = await post(app, 'mutation($id: ID!) { retryWebhookDelivery(id: $id) { id status } }', {
      headers: ACME,
      variables: { id },
    });
    assert.deepEqual(retried.body.data?.retryWebhookDelivery, { id, status: 'PENDING' });
    const shown = await post(
      app,
      'query($id: ID!) { webhookDelivery(id: $id) { id status attemptCount attempts { attempt } endpoint { id owner } } }',
      {
        headers: ACME,
        variables: { id },
      },
    );
    const details = shown.body.data?.webhookDelivery as { attempts: unknown[]; endpoint: { owner: string } };
    assert.deepEqual(details.attempts, []);
    assert.equal(details.endpoint.owner, 'acme');
  });
});

/** The newest delivery a caller sees. */
async function firstDelivery(headers: Record<string, string>): Promise<string> {
  const answer = await post(app, '{ webhookDeliveries(perPage: 1) { nodes { id } } }', { headers });
  return (answer.body.data!.webhookDeliveries as { nodes: Array<{ id: string }> }).nodes[0].id;
}

describe('GraphQL webhooks: batch loading and Idempotency-Key', () => {
  /** Statements the server sent while answering `query` as admin. */
  async function statementsFor(query: string): Promise<{ statements: string[]; answer: GraphqlAnswer }> {
    const before = app.statements.length;
    const answer = await post(app, query, { headers: ADMIN });
    return { statements: app.statements.slice(before), answer };
  }

  it('a page of deliveries with their endpoints takes the same two statements for a few or many deliveries (no N+1)', async () => {
    const query = '{ webhookDeliveries(perPage: 50) { total nodes { id endpoint { id url owner } } } }';
    const small = await statementsFor(query);
    const smallPage = small.answer.body.data?.webhookDeliveries as {
      total: number;
      nodes: Array<{ endpoint: { id: string } | null }>;
    };
    assert.ok(smallPage.total >= 3);
    for (let i = 0; i < 5; i += 1) {
      await post(app, 'mutation { emitWebhookEvent(input: {type: "order.paid", owner: "acme"}) { type } }', {
        headers: ADMIN,
      });
      await post(app, 'mutation { emitWebhookEvent(input: {type: "order.paid", owner: "globex"}) { type } }', {
        headers: ADMIN,
      });
    }
    const large = await statementsFor(query);
    const largePage = large.answer.body.data?.webhookDeliveries as {
      total: number;
      nodes: Array<{ endpoint: { id: string } | null }>;
    };
    assert.equal(largePage.total, smallPage.total + 25);
    assert.ok(largePage.nodes.every((node) => node.endpoint !== null));
    assert.equal(large.statements.length, small.statements.length);
    assert.equal(large.statements.length, 2, large.statements.join('\n---\n')); // the page with its count, the endpoints
  });

  it('a mutation with Idempotency-Key runs once: the same request again replays the answer, another body is 422', async () => {
    const headers = { ...ACME, 'Idempotency-Key': 'register-once-1' };
    const input = { url: 'http://127.0.0.1:9/acme/idempotent' };
    const first = await register(headers, input);
    const again = await register(headers, input);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    const listed = await post(app, '{ webhookEndpoints(perPage: 100) { nodes { url } } }', { headers: ACME });
    const urls = (listed.body.data!.webhookEndpoints as { nodes: Array<{ url: string }> }).nodes.filter(
      (node) => node.url === input.url,
    );
    assert.equal(urls.length, 1, 'registered once');

    const reused = await register(headers, { url: 'http://127.0.0.1:9/acme/other' });
    assert.equal(reused.status, 422);
    assert.equal((reused.body as { code?: string }).code, 'APP_API_IDEMPOTENCY_KEY_REUSED');
  });

  it('a query with Idempotency-Key is not recorded (the key applies to mutations)', async () => {
    const headers = { ...ACME, 'Idempotency-Key': 'query-key' };
    const first = await post(app, '{ webhookEndpoints { total } }', { headers });
    const second = await post(app, '{ webhookEvents { total } }', { headers });
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(second.headers.get('idempotency-replayed'), null);
  });
});
