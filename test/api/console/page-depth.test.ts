/**
 * The console's listings link no deeper than the paging bound (`api.maxPageOffset`): "Next page"
 * stops at the deepest page answered, which says to narrow the list with its filters where it has
 * any, and a page typed past it is refused (422 `APP_PAGE_TOO_DEEP`): deliveries, events,
 * endpoints and event types show the listing with the refusal's reason, tokens, users and
 * tenants the error page; never a 500.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { createEventType } from '../../../shared/webhooks/event-types/index.ts';
import { createToken } from '../../../shared/tokens/tokens.ts';
import { createUser } from '../../../shared/accounts/users.ts';
import { seedDeadPerMinute } from '../../helpers/attempt-history.ts';
import { Browser, startAccounts } from '../accounts/helpers.ts';

const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe('console listings past the paging bound', () => {
  let admin: Browser;
  let busy = '';

  before(async () => {
    // 24 records skipped at most: with 26 dead deliveries, dead letters (25 a page) and the events
    // of a type (25) answer page 1 and no further, an endpoint's deliveries (20) page 2
    const app = await startAccounts({ api: { maxPageOffset: 24 } });
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    const endpoint = await registerEndpoint(deps, OPERATOR, { url: 'http://127.0.0.1:9/busy', events: ['*'] });
    busy = endpoint.id;
    await seedDeadPerMinute(app.db.sql, endpoint, 26);
    // 51 endpoints, event types and tokens: two pages of 50 each, of which page 1 is the deepest answered
    for (let i = 1; i < 51; i++)
      await registerEndpoint(deps, OPERATOR, { url: `http://127.0.0.1:9/e${i}`, events: ['*'] });
    for (let i = 0; i < 51; i++) await createEventType(deps, OPERATOR, { name: `order.step${i}` });
    // each token of a tenant of its own: 51 tenants and more, two pages of 50
    for (let i = 0; i < 51; i++) await createToken(deps, { name: `ci ${i}`, role: 'viewer', owner: `acme${i}` });
    admin = new Browser(app.base);
    await admin.signIn((await app.user({ role: 'admin' })).email);
    // 51 users with the admin: two pages of 50
    for (let i = 0; i < 50; i++)
      await createUser(app.accounts, OPERATOR, { email: `viewer${i}@acme.test`, role: 'viewer', owner: 'acme' });
  });

  it('offers no "Next page" past the deepest page, says why there, and answers a page past it with the reason', async () => {
    // dead letters: 2 pages of 25, the deepest answered page 1 (25 skipped is past 24)
    const first = await admin.request('GET', `/dead-letters?endpoint=${busy}`, { headers: html });
    assert.equal(first.status, 200, first.text);
    assert.match(first.text, /Page 1 of 2/);
    assert.doesNotMatch(first.text, />Next page</);
    assert.match(first.text, /<p id="deepest-page">[^<]*narrow the list with its filters/);
    // an endpoint's deliveries: 2 pages of 20, page 2 answered (20 skipped), so page 1 links to it
    const deliveries = await admin.request('GET', `/endpoints/${busy}?status=dead`, { headers: html });
    assert.equal(deliveries.status, 200, deliveries.text);
    assert.match(deliveries.text, />Next page</);
    assert.doesNotMatch(deliveries.text, /id="deepest-page"/);

    for (const path of [`/dead-letters?endpoint=${busy}&page=2`, '/find?q=order.created&page=2']) {
      const past = await admin.request('GET', path, { headers: html });
      assert.equal(past.status, 422, `${path}: ${past.text}`);
      assert.match(past.text, /narrow the listing with since\/until/, path);
      assert.match(past.text, /data-code="APP_PAGE_TOO_DEEP"/, path);
    }
  });

  it('the overview, event types, tokens, users and tenants stop "Next page" at the deepest page and refuse a page past it', async () => {
    for (const [path, refusal] of [
      ['/', /narrow the listing with owner, enabled, events/],
      ['/event-types', /the deepest page is 1\)/],
      ['/tokens', /the deepest page is 1\)/],
      ['/users', /the deepest page is 1\): narrow the listing with enabled, role, owner, email/],
      ['/tenants', /the deepest page is 1\)/],
    ] as const) {
      const first = await admin.request('GET', path, { headers: html });
      assert.equal(first.status, 200, `${path}: ${first.text}`);
      assert.match(first.text, /Page 1 of 2/, path);
      assert.doesNotMatch(first.text, />Next page</, path);
      assert.match(first.text, /<p id="deepest-page">Pages go no deeper than this one/, path);
      const past = await admin.request('GET', `${path}?page=2`, { headers: html });
      assert.equal(past.status, 422, `${path}: ${past.text}`);
      assert.match(past.text, /data-code="APP_PAGE_TOO_DEEP"/, path);
      assert.match(past.text, refusal, path);
    }
  });
});
