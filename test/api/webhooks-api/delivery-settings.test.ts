/**
 * Endpoint delivery settings: `rateLimit` and `ordering` are set and changed
 * through every face (REST, GraphQL, the CLI's `--rate-limit`, `--clear-rate-limit`, `--fifo`,
 * `--no-fifo`) and described by the OpenAPI document; bad values get their stable codes.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { runAppInProcess } from '../../helpers/cli.ts';
import { call, closeAll, startApi } from './helpers.ts';

const app = await startApi();
after(() => closeAll());

describe('endpoint delivery settings: rateLimit and ordering', () => {
  it('REST: set at registration, changed and cleared by PATCH, refused with their codes', async () => {
    const admin = await app.token('admin');
    const made = await call('POST', `${app.api}/webhooks`, {
      token: admin,
      body: { url: 'https://receiver.example/in', events: ['*'], rateLimit: 20, ordering: 'fifo' },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.rateLimit, 20);
    assert.equal(made.body.ordering, 'fifo');
    const id = made.body.externalId as string;
    const patched = await call('PATCH', `${app.api}/webhooks/${id}`, {
      token: admin,
      body: { rateLimit: null, ordering: 'none' },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.rateLimit, null);
    assert.equal(patched.body.ordering, 'none');
    const badOrdering = await call('PATCH', `${app.api}/webhooks/${id}`, { token: admin, body: { ordering: 'lifo' } });
    assert.equal(badOrdering.status, 422);
    assert.equal(badOrdering.body.code, 'APP_WEBHOOK_ORDERING_INVALID');
    const badRate = await call('POST', `${app.api}/webhooks`, {
      token: admin,
      body: { url: 'https://receiver.example/in', events: ['*'], rateLimit: 0 },
    });
    assert.equal(badRate.status, 422);
    assert.equal(badRate.body.code, 'APP_WEBHOOK_RATE_LIMIT_INVALID');
  });

  it('GraphQL: registerWebhookEndpoint and updateWebhookEndpoint carry both', async () => {
    const admin = await app.token('admin');
    const gql = (query: string) =>
      call('POST', `${app.base}/_app/gql`, { token: admin, headers: { Accept: 'application/json' }, body: { query } });
    const made = await gql(
      `mutation { registerWebhookEndpoint(input: {url: "https://receiver.example/gql", events: ["*"], rateLimit: 7, ordering: "fifo"}) { endpoint { id rateLimit ordering } } }`,
    );
    const endpoint = made.body.data?.registerWebhookEndpoint?.endpoint;
    assert.deepEqual(
      { rateLimit: endpoint?.rateLimit, ordering: endpoint?.ordering },
      { rateLimit: 7, ordering: 'fifo' },
      JSON.stringify(made.body),
    );
    const updated = await gql(
      `mutation { updateWebhookEndpoint(id: "${endpoint.id}", input: {rateLimit: null, ordering: "none"}) { rateLimit ordering } }`,
    );
    assert.deepEqual(updated.body.data.updateWebhookEndpoint, { rateLimit: null, ordering: 'none' });
    const refused = await gql(
      `mutation { updateWebhookEndpoint(id: "${endpoint.id}", input: {ordering: "sideways"}) { ordering } }`,
    );
    assert.equal(refused.body.errors[0].extensions.code, 'APP_WEBHOOK_ORDERING_INVALID');
  });

  it('the CLI: webhooks:add --rate-limit --fifo, webhooks:update --no-fifo --clear-rate-limit, webhooks:show prints both', async () => {
    const env = { PATH: process.env.PATH ?? '', HOME: '/tmp', NODE_ENV: 'test', DATABASE_URL: app.db.url };
    const added = await runAppInProcess(
      ['webhooks:add', 'https://receiver.example/cli', '--events', '*', '--rate-limit', '3', '--fifo', '--json'],
      env,
    );
    assert.equal(added.code, 0, added.stderr);
    const made = JSON.parse(added.stdout) as { externalId: string; rateLimit: number; ordering: string };
    assert.deepEqual({ rateLimit: made.rateLimit, ordering: made.ordering }, { rateLimit: 3, ordering: 'fifo' });
    const shown = await runAppInProcess(['webhooks:show', made.externalId], env);
    assert.match(shown.stdout, /rate limit: +3 deliveries per second/);
    assert.match(shown.stdout, /ordering: +fifo/);
    const updated = await runAppInProcess(
      ['webhooks:update', made.externalId, '--no-fifo', '--clear-rate-limit', '--json'],
      env,
    );
    assert.equal(updated.code, 0, updated.stderr);
    const after = JSON.parse(updated.stdout) as { rateLimit: number | null; ordering: string };
    assert.deepEqual({ rateLimit: after.rateLimit, ordering: after.ordering }, { rateLimit: null, ordering: 'none' });
  });

  it('OpenAPI: the create and update bodies and the endpoint describe both', async () => {
    const env = { PATH: process.env.PATH ?? '', HOME: '/tmp', NODE_ENV: 'test' };
    const run = await runAppInProcess(['openapi'], env);
    assert.equal(run.code, 0, run.stderr);
    const doc = JSON.parse(run.stdout);
    const schemas = doc.components.schemas;
    for (const name of ['WebhookCreate', 'WebhookUpdate']) {
      assert.ok(schemas[name].properties.rateLimit, `${name}.rateLimit`);
      assert.deepEqual(schemas[name].properties.ordering.enum, ['none', 'fifo', null], `${name}.ordering`);
    }
    assert.ok(JSON.stringify(schemas).includes('"ordering"'));
  });
});
