/**
 * The CLI's `--json` answers a record as the REST API answers it (docs/cli.md: "with the field
 * names of the REST API and GraphQL"): the same document, less the HAL `_links`. Each test asks
 * the real web process over HTTP and the real CLI on the same database and compares the two.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { runAppInProcess } from '../helpers/cli.ts';
import { Browser, PASSWORD, startAccounts } from '../api/accounts/helpers.ts';

const app = await startAccounts();

async function json<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const run = await runAppInProcess([...args, '--json'], {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'test',
    DATABASE_URL: app.db.url,
    APP_PUBLIC_URL: app.base,
    APP_WEBHOOKS__ALLOW_HTTP: 'true',
    APP_WEBHOOKS__ALLOW_PRIVATE: 'true',
  });
  assert.equal(run.code, 0, `app ${args.join(' ')}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

/** A REST answer without its HAL links: what the CLI prints of the same record. */
function withoutLinks(document: Record<string, unknown>): Record<string, unknown> {
  const { _links, ...rest } = document;
  assert.ok(_links, 'a REST resource carries its links');
  return rest;
}

/** An admin signed in to the web process, calling the REST API with its session. */
let admin: { email: string; browser: Browser; csrf: string; user: Record<string, unknown> };

async function rest(method: string, path: string, body?: unknown) {
  const answer = await admin.browser.request(method, path, {
    ...(body === undefined ? {} : { json: body }),
    headers: { 'x-csrf-token': admin.csrf, accept: 'application/hal+json' },
  });
  assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${answer.text}`);
  return answer.body as Record<string, unknown> & { _embedded?: Record<string, Record<string, unknown>[]> };
}

before(async () => {
  const user = await app.user({ role: 'admin' });
  const browser = new Browser(app.base);
  const signedIn = await browser.request('POST', '/login', { json: { email: user.email, password: PASSWORD } });
  assert.equal(signedIn.status, 200, signedIn.text);
  admin = { email: user.email, browser, csrf: signedIn.body.csrfToken, user: signedIn.body.user };
});

describe('tokens:* --json answer a token as GET/POST/DELETE /api/v1/tokens do (externalId, no userId)', () => {
  it('tokens:create, tokens:list and tokens:revoke print the REST shape of a token', async () => {
    const created = await json(['tokens:create', '--name', 'from the cli', '--role', 'member', '--owner', 'acme']);
    const minted = withoutLinks(
      await rest('POST', '/api/v1/tokens', { name: 'from the api', role: 'member', owner: 'acme' }),
    );
    assert.deepEqual(Object.keys(created), Object.keys(minted), 'the create answer: the same fields, in order');
    assert.match(String(created.externalId), /^tok_/);
    assert.match(String(created.token), /^app_tok_/);
    assert.equal('id' in created || 'userId' in created, false);

    const listed = await json<Record<string, unknown>[]>(['tokens:list']);
    const page = await rest('GET', '/api/v1/tokens?per_page=100');
    const fromRest = (page._embedded?.tokens ?? []).map(withoutLinks);
    const { token: _text, ...createdRecord } = created;
    const cliOne = listed.find((token) => token.externalId === created.externalId);
    assert.deepEqual(cliOne, createdRecord, 'listed as created, without its text');
    assert.deepEqual(
      cliOne,
      fromRest.find((token) => token.externalId === created.externalId),
      'tokens:list prints what GET /api/v1/tokens answers',
    );

    const revoked = await json(['tokens:revoke', String(created.externalId)]);
    const revokedOverRest = withoutLinks(await rest('DELETE', `/api/v1/tokens/${minted.externalId}`));
    assert.deepEqual(Object.keys(revoked), Object.keys(revokedOverRest));
    assert.ok(revoked.revokedAt);
    assert.deepEqual(
      (await json<Record<string, unknown>[]>(['tokens:list', '--all'])).find(
        (token) => token.externalId === created.externalId,
      ),
      revoked,
    );
  });
});

describe('events:emit --json answers an emit as POST /api/v1/events does (externalId, deliveryIds, duplicate, filteredOut)', () => {
  const owner = 'emit-shapes';
  before(async () => {
    await json(['webhooks:add', 'http://127.0.0.1:9/emit-a', '--events', 'order.*', '--owner', owner]);
    await json(['webhooks:add', 'http://127.0.0.1:9/emit-b', '--events', 'order.*', '--owner', owner]);
  });

  it('a fresh emit: the event id and its deliveries, the fields of the REST answer', async () => {
    const cli = await json(['events:emit', 'order.created', '--owner', owner, '--data', '{"n": 1}']);
    const overRest = withoutLinks(
      await rest('POST', '/api/v1/events', { type: 'order.created', owner, data: { n: 2 } }),
    );
    assert.deepEqual(Object.keys(cli), Object.keys(overRest));
    assert.match(String(cli.externalId), /^evt_/);
    assert.equal(cli.type, 'order.created');
    assert.equal(cli.owner, owner);
    assert.equal(cli.deliveryCount, 2);
    assert.equal((cli.deliveryIds as string[]).length, 2);
    assert.equal(cli.duplicate, false);
    assert.equal(cli.filteredOut, 0);
  });

  it('a repeated --event-id says duplicate with the original event and deliveries, exactly as REST answers the same repeat', async () => {
    const first = await json(['events:emit', 'order.created', '--owner', owner, '--event-id', 'shape-1']);
    assert.equal(first.duplicate, false);
    const again = await json(['events:emit', 'order.created', '--owner', owner, '--event-id', 'shape-1']);
    assert.equal(again.duplicate, true, 'a JSON caller can tell a duplicate');
    assert.equal(again.externalId, first.externalId);
    const sorted = (ids: unknown) => [...(ids as string[])].sort();
    assert.deepEqual(sorted(again.deliveryIds), sorted(first.deliveryIds), 'the same deliveries');
    const overRest = withoutLinks(
      await rest('POST', '/api/v1/events', { type: 'order.created', owner, eventId: 'shape-1' }),
    );
    assert.deepEqual(again, overRest);
  });

  it('an emit no endpoint subscribes to: externalId null and no delivery, as REST answers it', async () => {
    const cli = await json(['events:emit', 'nobody.listens', '--owner', owner]);
    const overRest = withoutLinks(await rest('POST', '/api/v1/events', { type: 'nobody.listens', owner }));
    assert.deepEqual(cli, overRest);
    assert.deepEqual([cli.externalId, cli.deliveryIds, cli.duplicate], [null, [], false]);
  });
});

describe('users:* --json answer a user as the account routes do (their User schema: `id`, as sign-in answers it)', () => {
  it('users:list prints the user the sign-in answer carries, field for field', async () => {
    const listed = await json<Record<string, unknown>[]>(['users:list']);
    assert.deepEqual(
      listed.find((user) => user.email === admin.email),
      admin.user,
    );
    const made = await json(['users:create', '--email', 'shapes@acme.test', '--role', 'viewer', '--owner', 'acme']);
    const { setPasswordUrl, expiresAt, ...user } = made;
    assert.ok(setPasswordUrl && expiresAt);
    assert.deepEqual(Object.keys(user), Object.keys(admin.user), 'users:create: the same fields, and its link');
  });
});
