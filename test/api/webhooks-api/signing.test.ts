import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { runAppInProcess } from '../../helpers/cli.ts';
import { call, closeAll, startApi } from './helpers.ts';

const app = await startApi();

describe('signing over REST, GraphQL and the CLI', () => {
  after(closeAll);
  it('REST: signing ed25519 answers the whpk_ public key and shows signing; a bad value is 422 APP_WEBHOOK_SIGNING_INVALID', async () => {
    const token = await app.token('admin');
    const made = await call('POST', `${app.api}/webhooks`, {
      token,
      body: { url: 'https://receiver.example/hook', events: ['*'], signing: 'ed25519' },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.signing, 'ed25519');
    assert.match(made.body.secret, /^whpk_/);
    const shown = await call('GET', `${app.api}/webhooks/${made.body.externalId}`, { token });
    assert.equal(shown.body.signing, 'ed25519');
    const bad = await call('POST', `${app.api}/webhooks`, {
      token,
      body: { url: 'https://receiver.example/hook', events: ['*'], signing: 'md5' },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, 'APP_WEBHOOK_SIGNING_INVALID');
    const patched = await call('PATCH', `${app.api}/webhooks/${made.body.externalId}`, {
      token,
      body: { signing: 'hmac-sha256' },
    });
    assert.equal(patched.status, 422, 'the scheme is chosen at registration');
  });

  it('GraphQL: registerWebhookEndpoint(input: {signing: "ed25519"}) answers the public key', async () => {
    const token = await app.token('admin');
    const answer = await call('POST', `${app.base}/_app/gql`, {
      token,
      headers: { Accept: 'application/json' },
      body: {
        query:
          'mutation { registerWebhookEndpoint(input: {url: "https://receiver.example/g", events: ["*"], signing: "ed25519"}) { secret endpoint { signing } } }',
      },
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body));
    assert.match(answer.body.data.registerWebhookEndpoint.secret, /^whpk_/);
    assert.equal(answer.body.data.registerWebhookEndpoint.endpoint.signing, 'ed25519');
  });

  it('CLI: webhooks:add --signing ed25519 prints the public key', async () => {
    const run = await runAppInProcess(
      ['webhooks:add', 'https://receiver.example/cli', '--events', '*', '--signing', 'ed25519', '--json'],
      { PATH: process.env.PATH ?? '', HOME: '/tmp', NODE_ENV: 'test', DATABASE_URL: app.db.url },
    );
    assert.equal(run.code, 0, run.stderr);
    const printed = JSON.parse(run.stdout);
    assert.equal(printed.signing, 'ed25519');
    assert.match(printed.secret, /^whpk_/);
  });
});
