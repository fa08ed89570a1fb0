/**
 * A broker url with credentials through the API faces and the CLI, over real HTTP and the real
 * CLI: REST (HAL) and GraphQL register, show, list and update it, a delivery and an event embed
 * it, a refusal quotes it; the CLI adds, lists, shows and updates it (text and --json). Every
 * answer shows it masked (`***@`), the row at rest holds it sealed, and no answer, log line or
 * output holds the user name or the password.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runAppInProcess } from '../../helpers/cli.ts';
import { call, closeAll, startApi } from './helpers.ts';

const SECRET = 'the application secret of the broker url faces, 32+';
const app = await startApi({ secret: SECRET });
const USER = 'faces-publisher';
const PASSWORD = 'Faces-Pw-5531';
const url = (host: string, queue: string) => `amqp://${USER}:${PASSWORD}@${host}:5672/%2F?routingKey=${queue}`;
const masked = (host: string, queue: string) => `amqp://***@${host}:5672/%2F?routingKey=${queue}`;

/** Asserts that `text` holds neither the user name nor the password. */
const clean = (text: string, what: string) => {
  assert.ok(!text.includes(PASSWORD), `${what} holds the password:\n${text}`);
  assert.ok(!text.includes(USER), `${what} holds the user name:\n${text}`);
};
const storedUrl = async (id: string) =>
  (await app.db.sql<{ url: string }[]>`select url from app_webhooks where id = ${id}`)[0].url;

describe('a broker url through REST, GraphQL and the CLI: masked in every answer, sealed at rest', () => {
  it('REST: register, show, list, a delivery and its event, update with ***, a refusal: all masked; the row sealed', async () => {
    const admin = await app.token('admin');
    const created = await call('POST', `${app.api}/webhooks`, {
      token: admin,
      body: {
        url: url('127.0.0.1', 'rest'),
        events: ['order.*'],
        owner: 'rest-tenant',
        rateLimit: 3,
        ordering: 'fifo',
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.url, masked('127.0.0.1', 'rest'));
    assert.equal(created.body.rateLimit, 3, 'per-endpoint settings apply unchanged');
    assert.equal(created.body.ordering, 'fifo');
    const id = created.body.externalId as string;
    const stored = await storedUrl(id);
    clean(stored, 'the stored row');
    assert.match(stored, /^amqp:\/\/sealed\./);

    const shown = await call('GET', `${app.api}/webhooks/${id}`, { token: admin });
    assert.equal(shown.body.url, masked('127.0.0.1', 'rest'));
    const listed = await call('GET', `${app.api}/webhooks?owner=rest-tenant`, { token: admin });
    assert.match(listed.text, /amqp:\/\/\*\*\*@127\.0\.0\.1/);

    const emitted = await call('POST', `${app.api}/events`, {
      token: admin,
      body: { type: 'order.created', data: { n: 1 }, owner: 'rest-tenant' },
    });
    assert.equal(emitted.status, 202, emitted.text);
    const [deliveryId] = emitted.body.deliveryIds as string[];
    const delivery = await call('GET', `${app.api}/deliveries/${deliveryId}`, { token: admin });
    assert.equal(delivery.status, 200, delivery.text);
    assert.match(delivery.text, /amqp:\/\/\*\*\*@127\.0\.0\.1/, 'the delivery embeds its endpoint, masked');
    const event = await call('GET', `${app.api}/events/${emitted.body.externalId ?? emitted.body.id}`, {
      token: admin,
    });
    assert.equal(event.status, 200, event.text);
    const deliveries = await call('GET', `${app.api}/deliveries?endpoint=${id}`, { token: admin });
    assert.equal(deliveries.status, 200, deliveries.text);
    assert.match(deliveries.text, new RegExp(deliveryId));

    const kept = await call('PATCH', `${app.api}/webhooks/${id}`, {
      token: admin,
      body: { url: masked('127.0.0.1', 'rest-2') },
    });
    assert.equal(kept.status, 200, kept.text);
    assert.equal(kept.body.url, masked('127.0.0.1', 'rest-2'));
    assert.notEqual(await storedUrl(id), stored, 'the new path is stored');
    const refused = await call('PATCH', `${app.api}/webhooks/${id}`, {
      token: admin,
      body: { url: masked('127.0.0.2', 'rest-2') },
    });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'APP_WEBHOOK_URL_CREDENTIALS_REQUIRED');
    const invalid = await call('POST', `${app.api}/webhooks`, {
      token: admin,
      body: { url: `amqp://${USER}:${PASSWORD}@127.0.0.1:5672/`, events: ['*'] },
    });
    assert.equal(invalid.status, 422);
    assert.equal(invalid.body.code, 'APP_WEBHOOK_URL_INVALID');

    for (const [what, answer] of Object.entries({
      created,
      shown,
      listed,
      delivery,
      event,
      deliveries,
      kept,
      refused,
      invalid,
    }))
      clean(answer.text, `the ${what} answer`);
    clean(app.logs.join(''), 'the web log');
  });

  it('GraphQL: register, read back, a delivery and an update keep the url masked', async () => {
    const admin = await app.token('admin');
    const gql = (query: string, variables: Record<string, unknown> = {}) =>
      call('POST', `${app.base}/_app/gql`, {
        token: admin,
        headers: { Accept: 'application/json' },
        body: { query, variables },
      });
    const made = await gql(
      'mutation ($url: String!) { registerWebhookEndpoint(input: {url: $url, events: ["order.*"], owner: "gql-tenant"}) { endpoint { id url } secret } }',
      { url: url('127.0.0.1', 'gql') },
    );
    const endpoint = made.body.data?.registerWebhookEndpoint?.endpoint;
    assert.equal(endpoint?.url, masked('127.0.0.1', 'gql'), made.text);
    const read = await gql('query ($id: ID!) { webhookEndpoint(id: $id) { url } }', { id: endpoint.id });
    assert.equal(read.body.data.webhookEndpoint.url, masked('127.0.0.1', 'gql'));
    await call('POST', `${app.api}/events`, {
      token: admin,
      body: { type: 'order.created', data: { n: 2 }, owner: 'gql-tenant' },
    });
    const deliveries = await gql(
      'query ($owner: String) { webhookDeliveries(filter: {owner: $owner}) { nodes { endpoint { url } } } }',
      { owner: 'gql-tenant' },
    );
    assert.equal(
      deliveries.body.data?.webhookDeliveries?.nodes?.[0]?.endpoint?.url,
      masked('127.0.0.1', 'gql'),
      deliveries.text,
    );
    const updated = await gql(
      'mutation ($id: ID!, $url: String) { updateWebhookEndpoint(id: $id, input: {url: $url}) { url } }',
      {
        id: endpoint.id,
        url: masked('127.0.0.1', 'gql-2'),
      },
    );
    assert.equal(updated.body.data?.updateWebhookEndpoint?.url, masked('127.0.0.1', 'gql-2'), updated.text);
    const schema = await gql('{ __type(name: "RegisterWebhookEndpointInput") { inputFields { name description } } }');
    assert.match(
      JSON.stringify(schema.body),
      /amqps:\/\/user:pass@host/,
      'the schema says which url forms are accepted',
    );
    for (const answer of [made, read, deliveries, updated]) clean(answer.text, 'a GraphQL answer');
    clean(app.logs.join(''), 'the web log');
  });

  it('the CLI: webhooks:add, webhooks:list, webhooks:show and webhooks:update, text and --json, masked', async () => {
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: '/tmp',
      NODE_ENV: 'test',
      DATABASE_URL: app.db.url,
      APP_SECRET: SECRET,
      APP_WEBHOOKS__ALLOW_HTTP: 'true',
      APP_WEBHOOKS__ALLOW_PRIVATE: 'true',
      LOG_LEVEL: 'debug',
    };
    const outputs: string[] = [];
    const run = async (args: string[]) => {
      const result = await runAppInProcess(args, env);
      outputs.push(result.stdout, result.stderr);
      return result;
    };
    const added = await run([
      'webhooks:add',
      url('127.0.0.1', 'cli'),
      '--events',
      '*',
      '--owner',
      'cli-tenant',
      '--json',
    ]);
    assert.equal(added.code, 0, added.stderr);
    const made = JSON.parse(added.stdout) as { externalId: string; url: string };
    assert.equal(made.url, masked('127.0.0.1', 'cli'));
    const addedText = await run([
      'webhooks:add',
      url('127.0.0.1', 'cli-text'),
      '--events',
      '*',
      '--owner',
      'cli-tenant',
    ]);
    assert.equal(addedText.code, 0, addedText.stderr);
    const listed = await run(['webhooks:list', '--owner', 'cli-tenant']);
    assert.match(listed.stdout, /amqp:\/\/\*\*\*@127\.0\.0\.1:5672\/%2F\?routingKey=cli\b/);
    const listedJson = await run(['webhooks:list', '--owner', 'cli-tenant', '--json']);
    assert.match(listedJson.stdout, /amqp:\/\/\*\*\*@127\.0\.0\.1/);
    const shown = await run(['webhooks:show', made.externalId]);
    assert.match(shown.stdout, /amqp:\/\/\*\*\*@127\.0\.0\.1/);
    const updated = await run(['webhooks:update', made.externalId, '--url', masked('127.0.0.1', 'cli-2'), '--json']);
    assert.equal(updated.code, 0, updated.stderr);
    assert.equal(JSON.parse(updated.stdout).url, masked('127.0.0.1', 'cli-2'));
    const refused = await run(['webhooks:update', made.externalId, '--url', masked('127.0.0.9', 'cli-2')]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /APP_WEBHOOK_URL_CREDENTIALS_REQUIRED|credentials are needed/);
    const openapi = await run(['openapi']);
    assert.match(openapi.stdout, /amqps:\/\/user:pass@host/, 'the OpenAPI document says which url forms are accepted');
    for (const text of outputs) clean(text, 'the CLI output');
    clean(await storedUrl(made.externalId), 'the stored row');
  });

  it('closes', closeAll);
});
