/**
 * A console form acts once (api/console/form-once.ts): every rendered form's `_csrf` token carries
 * a form key, and the same form sent again (a double click, going back and sending it again, a
 * browser repeating the POST) answers its first redirect instead of acting again; its one-time
 * value page then says the value was shown. A token without a key acts each time, as before; a
 * refused form can be corrected and sent with the same key; two sendings at once act once.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { createPortalLink } from '../../../shared/accounts/portal-links.ts';
import { memoryStore } from '../../../shared/stores/memory.ts';
import type { Json } from '../../../shared/stores/types.ts';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { recordKey, fingerprint } from '../../../api/idempotency/request.ts';
import { SHOWN_ONCE } from '../../../api/console/context.ts';
import { Browser, startConsole } from './harness.ts';

const html = { accept: 'text/html' };
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('console forms act once per rendered form', () => {
  const shared = memoryStore({ logFailure: () => {} });
  let app: Awaited<ReturnType<typeof startConsole>>;
  let browser: Browser;
  let plainCsrf: string;
  let userId: string;

  before(async () => {
    app = await startConsole({}, { sharedStore: shared });
    const user = await app.user({ role: 'admin' });
    userId = user.id;
    browser = new Browser(app.base);
    plainCsrf = await browser.signIn(user.email);
  });
  after(() => app.close());

  const core = () => ({ config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log });
  /** The `_csrf` token of the form posting to `action` on page `path`, as a browser gets it. */
  const formToken = async (path: string, action: string): Promise<string> => {
    const page = await browser.request('GET', path, { headers: html });
    assert.equal(page.status, 200, page.text);
    const found = new RegExp(`action="${escaped(action)}"[^]*?name="_csrf" value="([^"]+)"`).exec(page.text);
    assert.ok(found, `a form to ${action} on ${path}`);
    assert.equal(found[1].split('.').length, 3, 'a rendered form carries a form key');
    return found[1];
  };
  const post = (path: string, form: Record<string, string>) => browser.request('POST', path, { form });
  const count = async (query: Promise<{ n: number }[]>) => Number((await query)[0].n);
  const endpoints = (url: string) => count(app.db.sql`SELECT count(*)::int AS n FROM app_webhooks WHERE url = ${url}`);
  const tokens = (name: string) =>
    count(app.db.sql`SELECT count(*)::int AS n FROM app_api_tokens WHERE name = ${name}`);

  it('registering twice with one form registers one endpoint; the second answer is the same 303', async () => {
    const url = `http://127.0.0.1:9/once-${randomUUID()}`;
    const form = { _csrf: await formToken('/endpoints/new', '/endpoints'), url, events: '*', owner: 'acme' };
    const first = await post('/endpoints', form);
    assert.equal(first.status, 303, first.text);
    const location = first.headers.get('location') as string;
    const shown = await browser.request('GET', location, { headers: html });
    assert.match(shown.text, /<pre id="secret">whsec_/);

    const second = await post('/endpoints', form);
    assert.equal(second.status, 303, second.text);
    assert.equal(second.headers.get('location'), location);
    assert.equal(second.headers.get('idempotency-replayed'), 'true');
    assert.equal(await endpoints(url), 1);

    // the page the second answer leads to has no secret to show: it says it was shown, and what to do
    const again = await browser.request('GET', location, { headers: html });
    assert.equal(again.status, 303);
    const endpointPage = await browser.request('GET', again.headers.get('location') as string, { headers: html });
    assert.doesNotMatch(endpointPage.text, /whsec_/);
    assert.match(endpointPage.text, /was shown once, when it was registered.*rotate the secret/);
  });

  it('rotating twice with one form rotates once', async () => {
    const made = await registerEndpoint(core(), OPERATOR, { url: 'http://127.0.0.1:9/rotate-once', events: ['*'] });
    const action = `/endpoints/${made.id}/rotate`;
    const form = { _csrf: await formToken(`/endpoints/${made.id}`, action), grace: '1h' };
    const [first, second] = [await post(action, form), await post(action, form)];
    assert.equal(first.status, 303, first.text);
    assert.equal(second.headers.get('location'), first.headers.get('location'));
    const rows = await app.db.sql`SELECT jsonb_array_length(secrets) AS n FROM app_webhooks WHERE id = ${made.id}`;
    assert.equal(rows[0].n, 2, 'the first secret (in its grace) and one new one');
  });

  it('minting twice with one form mints one token; the tokens page then says it was shown', async () => {
    const form = { _csrf: await formToken('/tokens', '/tokens'), name: 'minted-once' };
    const first = await post('/tokens', form);
    assert.equal(first.status, 303, first.text);
    assert.match((await browser.request('GET', '/tokens', { headers: html })).text, /<pre id="token">app_/);
    const second = await post('/tokens', form);
    assert.equal(second.status, 303);
    assert.equal(second.headers.get('location'), '/tokens');
    const page = await browser.request('GET', '/tokens', { headers: html });
    assert.doesNotMatch(page.text, /<pre id="token">/);
    assert.ok(page.text.includes(SHOWN_ONCE.token), page.text);
    assert.equal(await tokens('minted-once'), 1);
  });

  it('a second sending whose first answer never reached the browser shows the value it did not see', async () => {
    const form = { _csrf: await formToken('/tokens', '/tokens'), name: 'dropped-answer' };
    const first = await post('/tokens', form);
    assert.equal(first.status, 303);
    browser.cookies.delete('app_once'); // the browser dropped the first answer (a double click)
    assert.equal((await post('/tokens', form)).status, 303);
    assert.match((await browser.request('GET', '/tokens', { headers: html })).text, /<pre id="token">app_/);
    assert.equal(await tokens('dropped-answer'), 1);
  });

  it('emitting twice with one form emits one event', async () => {
    await registerEndpoint(core(), OPERATOR, { url: 'http://127.0.0.1:9/emit-once', events: ['resubmit.*'] });
    const type = `resubmit.${randomUUID().slice(0, 8)}`;
    const form = { _csrf: await formToken('/events/new', '/events'), type, data: '{"n": 1}', owner: '' };
    const first = await post('/events', form);
    const second = await post('/events', form);
    assert.equal(first.status, 303, first.text);
    assert.equal(second.headers.get('location'), first.headers.get('location'));
    assert.equal(await count(app.db.sql`SELECT count(*)::int AS n FROM app_events WHERE type = ${type}`), 1);
  });

  it('a form sent without a key (the plain token) acts each time, as before', async () => {
    for (let i = 0; i < 2; i += 1) {
      const answer = await post('/tokens', { _csrf: plainCsrf, name: 'no-key' });
      assert.equal(answer.status, 303, answer.text);
      assert.equal(answer.headers.get('idempotency-replayed'), null);
    }
    assert.equal(await tokens('no-key'), 2);
  });

  it('a refused form acts nothing and can be corrected and sent again with its key', async () => {
    const url = `http://127.0.0.1:9/corrected-${randomUUID()}`;
    const token = await formToken('/endpoints/new', '/endpoints');
    const refused = await post('/endpoints', { _csrf: token, url, events: '', owner: 'acme' });
    assert.equal(refused.status, 422, refused.text);
    const again = /name="_csrf" value="([^"]+)"/g;
    const shownKeys = [...refused.text.matchAll(again)].map((match) => match[1].split('.')[2]);
    assert.ok(!shownKeys.includes(token.split('.')[2]), 'the form shown again has a new key');
    // the same refused form sent again is refused again (not "already sent"); corrected, it acts
    assert.equal((await post('/endpoints', { _csrf: token, url, events: '', owner: 'acme' })).status, 422);
    const corrected = await post('/endpoints', { _csrf: token, url, events: '*', owner: 'acme' });
    assert.equal(corrected.status, 303, corrected.text);
    assert.equal(await endpoints(url), 1);
  });

  it('the same form sent with other values after it acted is refused with a page saying why', async () => {
    const url = `http://127.0.0.1:9/other-values-${randomUUID()}`;
    const token = await formToken('/endpoints/new', '/endpoints');
    assert.equal((await post('/endpoints', { _csrf: token, url, events: '*', owner: 'acme' })).status, 303);
    const other = await post('/endpoints', { _csrf: token, url: `${url}/2`, events: '*', owner: 'acme' });
    assert.equal(other.status, 422, other.text);
    assert.match(other.text, /APP_CONSOLE_FORM_ALREADY_SENT/);
    assert.match(other.text, /this form was sent before, and this sending changed nothing/);
    assert.equal(await endpoints(url), 1);
    assert.equal(await endpoints(`${url}/2`), 0);
  });

  it('one key on two forms (two paths) acts on each: keys are scoped by path', async () => {
    const token = await formToken('/tokens', '/tokens');
    assert.equal((await post('/tokens', { _csrf: token, name: 'scoped-path' })).status, 303);
    const url = `http://127.0.0.1:9/scoped-${randomUUID()}`;
    assert.equal((await post('/endpoints', { _csrf: token, url, events: '*', owner: 'acme' })).status, 303);
    assert.equal(await endpoints(url), 1);
  });

  it('two sendings at once act once and answer the same 303', async () => {
    const url = `http://127.0.0.1:9/concurrent-${randomUUID()}`;
    const form = { _csrf: await formToken('/endpoints/new', '/endpoints'), url, events: '*', owner: 'acme' };
    const answers = await Promise.all([post('/endpoints', form), post('/endpoints', form), post('/endpoints', form)]);
    for (const answer of answers) assert.equal(answer.status, 303, answer.text);
    assert.equal(new Set(answers.map((answer) => answer.headers.get('location'))).size, 1);
    assert.equal(await endpoints(url), 1);
  });

  /** The record the first sending of `form` to `path` holds while it runs (as form-once.ts writes it). */
  const running = async (path: string, form: Record<string, string>) => {
    const [session] = await app.db
      .sql`SELECT id FROM app_sessions WHERE user_id = ${userId} ORDER BY created_at DESC LIMIT 1`;
    const { _csrf, ...fields } = form;
    const id = recordKey(`console-form:${session.id}:${path}`, _csrf.split('.')[2]);
    const print = fingerprint({ method: 'POST', url: path, body: JSON.stringify(fields) });
    await shared.entries.add(id, { state: 'executing', fingerprint: print, token: 'first' } as Json, 60_000);
    return { id, print };
  };

  it('a sending while the first still runs waits for its answer, and answers it', async () => {
    const form = { _csrf: await formToken('/tokens', '/tokens'), name: 'waited' };
    const { id, print } = await running('/tokens', form);
    // the second sending has found the first running: it waits
    const entries = shared.entries;
    const get = entries.get;
    const found = new Promise<void>((resolve) => {
      entries.get = async (key) => {
        const value = await get.call(entries, key);
        if (key === id && (value as { state?: string } | undefined)?.state === 'executing') resolve();
        return value;
      };
    });
    const second = post('/tokens', form);
    await found;
    entries.get = get;
    // the first finishes: its answer is stored (as it is: the reader opens an unsealed answer too)
    const answer = { status: 303, headers: { location: '/tokens?done=revoked' }, body: { kind: 'empty' } };
    await shared.entries.set(id, { state: 'stored', fingerprint: print, answer } as Json, 60_000);
    const answered = await second;
    assert.equal(answered.status, 303, answered.text);
    assert.equal(answered.headers.get('location'), '/tokens?done=revoked');
    assert.equal(await tokens('waited'), 0, 'the second sending did not mint');
  });

  it("a portal link opened by a signed-in browser: its sign-in's answer, which holds the new session's cookie, is not stored", async () => {
    const admin = await app.user({ role: 'admin' });
    const signedIn = new Browser(app.base);
    await signedIn.signIn(admin.email);
    const link = await createPortalLink(app.web.accounts, OPERATOR, { owner: 'acme' });
    const followed = await signedIn.request('GET', `/portal?token=${link.token}`, { headers: html });
    assert.equal(followed.status, 303, 'the link cookie keeps the token');
    const page = await signedIn.request('GET', '/portal', { headers: html });
    const csrf = /action="\/portal">\s*<input type="hidden" name="_csrf" value="([^"]+)"/.exec(
      page.text,
    )?.[1] as string;
    assert.equal(csrf.split('.').length, 3, 'the portal form carries a form key');
    const written: string[] = [];
    const set = shared.entries.set;
    shared.entries.set = async (key, value, ttlMs) => {
      written.push(`${key} ${JSON.stringify(value)}`);
      return set.call(shared.entries, key, value, ttlMs);
    };
    try {
      const answer = await signedIn.request('POST', '/portal', { form: { _csrf: csrf } });
      assert.equal(answer.status, 303, answer.text);
      assert.ok(
        answer.headers.getSetCookie().some((line) => line.startsWith('app_session=')),
        'signed in',
      );
    } finally {
      shared.entries.set = set;
    }
    assert.deepEqual(
      written.filter((line) => line.startsWith('idem:') || line.includes('"stored"')),
      [],
      'no answer was stored',
    );
  });

  it('a sending while the first runs on past the wait gets the "being processed" page, not a 500', async () => {
    const form = { _csrf: await formToken('/tokens', '/tokens'), name: 'still-running' };
    await running('/tokens', form);
    const answered = await post('/tokens', form);
    assert.equal(answered.status, 409, answered.text);
    assert.equal(answered.headers.get('retry-after'), '1');
    assert.match(answered.headers.get('content-type') ?? '', /text\/html/);
    assert.match(answered.text, /APP_CONSOLE_FORM_IN_PROGRESS/);
    assert.match(answered.text, /still being processed/);
    assert.equal(await tokens('still-running'), 0);
  });
});
