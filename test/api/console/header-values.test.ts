/**
 * Endpoint header values are receiver credentials (docs/webhooks-api.md, docs/accounts-and-console.md
 * "Console"): the settings form shows each header's name with `***` for its value, never the value;
 * saving the form with `***` left keeps the stored value (the core's rule: a null header value in a
 * change keeps the stored one, as REST's PATCH takes it); the values are shown only by the reveal
 * step, after its confirmation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { registerEndpoint, revealEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { Browser, startConsole } from './harness.ts';

describe('console header values: masked in the settings form, shown by the reveal step', () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let deps: Parameters<typeof registerEndpoint>[0];
  let admin: { browser: Browser; csrf: string };
  const html = { accept: 'text/html' };

  before(async () => {
    app = await startConsole();
    deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log } as never;
    const user = await app.user({ role: 'admin' });
    const browser = new Browser(app.base);
    admin = { browser, csrf: await browser.signIn(user.email) };
  });
  after(() => app.close());

  const stored = async (id: string) => (await revealEndpoint(deps, OPERATOR, id)).headers;

  it('the settings form shows names with *** and no value; *** left as shown keeps the value, a typed one replaces it', async () => {
    const made = await registerEndpoint(deps, OPERATOR, {
      url: 'http://127.0.0.1:9/keys',
      events: ['*'],
      headers: { 'X-Api-Key': 's3cr3t-value', 'X-Tenant': 'acme-tenant' },
    });
    const page = await admin.browser.request('GET', `/endpoints/${made.id}`, { headers: html });
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.text, /s3cr3t-value|acme-tenant/);
    const shown = /<textarea id="headers" name="headers">([^<]*)<\/textarea>/.exec(page.text)?.[1];
    assert.deepEqual(shown?.split('\n').sort(), ['X-Api-Key: ***', 'X-Tenant: ***']);

    const saved = await admin.browser.request('POST', `/endpoints/${made.id}`, {
      form: { _csrf: admin.csrf, url: made.url, events: '*', headers: 'X-Api-Key: ***\nX-Tenant: globex-tenant' },
    });
    assert.equal(saved.status, 303, saved.text);
    assert.deepEqual(await stored(made.id), { 'X-Api-Key': 's3cr3t-value', 'X-Tenant': 'globex-tenant' });

    const unknown = await admin.browser.request('POST', `/endpoints/${made.id}`, {
      form: { _csrf: admin.csrf, url: made.url, events: '*', headers: 'X-Other: ***' },
    });
    assert.equal(unknown.status, 422, unknown.text);
    assert.match(unknown.text, /APP_WEBHOOK_HEADERS_INVALID/);
    assert.deepEqual(await stored(made.id), { 'X-Api-Key': 's3cr3t-value', 'X-Tenant': 'globex-tenant' });
  });

  it('REST PATCH takes a null header value as "keep the stored one", as every unrevealed read shows it', async () => {
    const made = await registerEndpoint(deps, OPERATOR, {
      url: 'http://127.0.0.1:9/rest-keys',
      events: ['*'],
      headers: { Authorization: 'Bearer kept' },
    });
    const read = await admin.browser.request('GET', `/api/v1/webhooks/${made.id}`);
    assert.deepEqual(read.body.headers, { Authorization: null });
    const patched = await admin.browser.request('PATCH', `/api/v1/webhooks/${made.id}`, {
      json: { headers: { ...read.body.headers, 'X-New': 'new' } },
      headers: { 'x-csrf-token': admin.csrf },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(await stored(made.id), { Authorization: 'Bearer kept', 'X-New': 'new' });
  });

  it('the values are shown by the reveal step alone, after its confirmation', async () => {
    const made = await registerEndpoint(deps, OPERATOR, {
      url: 'http://127.0.0.1:9/revealed',
      events: ['*'],
      headers: { 'X-Api-Key': 'revealed-value' },
    });
    const confirm = await admin.browser.request('GET', `/endpoints/${made.id}/secret`, { headers: html });
    assert.doesNotMatch(confirm.text, /revealed-value/);
    const revealed = await admin.browser.request('POST', `/endpoints/${made.id}/secret`, {
      form: { _csrf: admin.csrf },
    });
    assert.equal(revealed.status, 200, revealed.text);
    assert.match(revealed.text, /<pre id="header-values">X-Api-Key: revealed-value/);
  });
});
