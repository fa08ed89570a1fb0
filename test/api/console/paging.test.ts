/**
 * `?page=` on the console's listings (api/console/paging.ts): a page past the end of a listing that
 * has records says so and links to its last page and its first, filters kept; a listing empty
 * altogether keeps its empty-state text; a value that is no page number sends a browser to the
 * first page (the rest of the query kept) and is refused to a JSON client as the REST API refuses
 * it; none of them is ever a 500. The tokens and users pages page as the others do (the users
 * page's filters kept by its pager and its forms). The delivery charts' window (`?window=`) and a
 * listing's filters and page keep each other.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { createToken } from '../../../shared/tokens/tokens.ts';
import { createUser } from '../../../shared/accounts/users.ts';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { seedDeadPerMinute } from '../../helpers/attempt-history.ts';
import { Browser, startAccounts } from '../accounts/helpers.ts';
import type { Answer } from '../accounts/helpers.ts';

const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/** The links of the page's pager past the end, by their text (`&amp;` read back). */
function pastEndLinks(answer: Answer): Record<string, string> {
  assert.equal(answer.status, 200, answer.text);
  assert.match(answer.text, /<p id="past-end">There is nothing on this page: the list ends at page \d+/);
  const nav = /<p id="past-end">[\s\S]*?<nav class="pager"[^>]*>([\s\S]*?)<\/nav>/.exec(answer.text)?.[1] ?? '';
  return Object.fromEntries(
    [...nav.matchAll(/<a href="([^"]*)">([^<]*)<\/a>/g)].map(([, href, text]) => [text, href.replaceAll('&amp;', '&')]),
  );
}

describe('console listings past their end and with bad page numbers', () => {
  let app: Awaited<ReturnType<typeof startAccounts>>;
  let admin: Browser;
  let member: Browser;
  let busy = '';
  let idle = '';

  before(async () => {
    app = await startAccounts();
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    const endpoint = await registerEndpoint(deps, OPERATOR, {
      url: 'http://127.0.0.1:9/busy',
      events: ['*'],
      owner: 'acme',
    });
    busy = endpoint.id;
    idle = (await registerEndpoint(deps, OPERATOR, { url: 'http://127.0.0.1:9/idle', events: ['*'], owner: 'acme' }))
      .id;
    // 26 dead deliveries: two pages of dead letters (25 a page), of the endpoint's deliveries (20)
    // and of the events of type order.created (25)
    await seedDeadPerMinute(app.db.sql, endpoint, 26);
    await createToken(deps, { name: 'ci', role: 'viewer', owner: 'acme' });
    admin = new Browser(app.base);
    await admin.signIn((await app.user({ role: 'admin' })).email);
    member = new Browser(app.base);
    await member.signIn((await app.user({ role: 'member', owner: 'globex' })).email);
  });

  it('a page past the end says so and links to the last page with records and to the first, filters kept; an empty listing keeps its empty state', async () => {
    const cases: [string, string, string][] = [
      // the listing, its page 300 (within the paging bound), its last page, its first page
      ['dead letters', `/dead-letters?endpoint=${busy}&page=300`, `/dead-letters?endpoint=${busy}&page=2`],
      ['deliveries', `/endpoints/${busy}?status=dead&page=300`, `/endpoints/${busy}?status=dead&page=2`],
      ['events of a type', '/find?q=order.created&page=300', '/find?q=order.created&page=2'],
    ];
    for (const [name, path, last] of cases) {
      const links = pastEndLinks(await admin.request('GET', path, { headers: html }));
      assert.deepEqual(links, { 'Last page (2)': last, 'First page': last.replace(/&page=2$/, '') }, name);
      // the last page has records, and is no page past the end
      const lastPage = await admin.request('GET', last, { headers: html });
      assert.equal(lastPage.status, 200);
      assert.doesNotMatch(lastPage.text, /id="past-end"/, name);
      assert.match(lastPage.text, /<a href="\/deliveries\/msg_|<a href="\/find\?q=evt_/, name);
    }
    // listings of one page: a single link, to it; the deepest page the paging bound allows (201 of
    // 50 at api.maxPageOffset 10,000) is as far past the end
    assert.deepEqual(pastEndLinks(await admin.request('GET', '/?page=3', { headers: html })), { 'First page': '/' });
    assert.deepEqual(pastEndLinks(await admin.request('GET', '/?owner=acme&page=3', { headers: html })), {
      'First page': '/?owner=acme',
    });
    assert.deepEqual(pastEndLinks(await admin.request('GET', '/tokens?page=201', { headers: html })), {
      'First page': '/tokens',
    });
    assert.deepEqual(pastEndLinks(await admin.request('GET', '/tenants?page=201', { headers: html })), {
      'First page': '/tenants',
    });
    // the page object of a page past the end says as much: its page, and how many pages there are
    const object = await admin.request('GET', `/dead-letters?endpoint=${busy}&page=300`);
    assert.deepEqual([object.body.data.webhookDeliveries.page, object.body.data.webhookDeliveries.pages], [300, 2]);

    // a listing empty altogether keeps its empty-state text, whatever the page
    const empty: [Browser, string, RegExp][] = [
      [admin, `/dead-letters?endpoint=${idle}&page=4`, /<td colspan="7">None\.<\/td>/],
      [admin, `/endpoints/${idle}?page=4`, /<td colspan="6">None\.<\/td>/],
      [admin, '/find?q=nothing.here&page=4', /<td colspan="6">None\.<\/td>/],
      [member, '/?page=4', /No endpoint yet\./],
      [member, '/tokens?page=4', /<td colspan="8">None\.<\/td>/],
    ];
    for (const [browser, path, says] of empty) {
      const answer = await browser.request('GET', path, { headers: html });
      assert.equal(answer.status, 200, `${path}: ${answer.text}`);
      assert.match(answer.text, says, path);
      assert.doesNotMatch(answer.text, /id="past-end"/, path);
    }
  });

  it("the charts' window and a listing's filters and page keep each other", async () => {
    const links = (answer: Answer, label: string) =>
      [
        ...(new RegExp(`<nav[^>]*aria-label="${label}"[^>]*>([\\s\\S]*?)</nav>`).exec(answer.text)?.[1] ?? '').matchAll(
          /<a href="([^"]*)"/g,
        ),
      ].map(([, href]) => href.replaceAll('&amp;', '&'));
    const endpoint = await admin.request('GET', `/endpoints/${busy}?status=dead&window=hour&page=2`, { headers: html });
    assert.deepEqual(links(endpoint, 'Chart window'), [
      `/endpoints/${busy}?status=dead&page=2&window=day`,
      `/endpoints/${busy}?status=dead&page=2&window=hour`,
    ]);
    assert.deepEqual(links(endpoint, 'Delivery pages'), [`/endpoints/${busy}?status=dead&window=hour&page=1`]);
    assert.match(
      endpoint.text,
      /<input type="hidden" name="window" value="hour">\s*<button type="submit" class="secondary">Filter<\/button>/,
    );
    const overview = await admin.request('GET', '/?owner=acme&window=hour', { headers: html });
    assert.match(
      overview.text,
      /<input type="hidden" name="window" value="hour">\s*<button type="submit" class="secondary">Show<\/button>/,
    );
    // the default window is no parameter
    const day = await admin.request('GET', `/endpoints/${busy}?status=dead&page=2`, { headers: html });
    assert.deepEqual(links(day, 'Delivery pages'), [`/endpoints/${busy}?status=dead&page=1`]);
    assert.doesNotMatch(day.text, /name="window"/);
  });

  it('the tokens page pages: a pager past 50 tokens, and the last page holds the rest', async () => {
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    for (let n = 0; n < 50; n += 1) await createToken(deps, { name: `deploy ${n}`, role: 'viewer', owner: 'acme' });
    const first = await admin.request('GET', '/tokens', { headers: html });
    assert.match(first.text, /<nav class="pager" aria-label="Token pages">/);
    assert.match(first.text, /<a href="\/tokens\?page=2">Next page<\/a>/);
    assert.match(first.text, /Page 1 of 2 \(51\)/);
    const second = await admin.request('GET', '/tokens?page=2', { headers: html });
    assert.equal((second.text.match(/aria-label="Revoke /g) ?? []).length, 1);
    assert.match(second.text, /<a href="\/tokens\?page=1">Previous page<\/a>/);
  });

  it('the users page pages: 50 a page with the total, its pager and the disable forms keeping the filters', async () => {
    for (let n = 0; n < 120; n += 1)
      await createUser(app.accounts, OPERATOR, { email: `staff${n}@bulk.test`, role: 'viewer', owner: 'bulk' });
    const order = (
      await app.db.sql<{ email: string }[]>`select email from app_users where owner = 'bulk' order by created_at, id`
    ).map((row) => row.email);
    const emailsOf = (answer: Answer) =>
      [...answer.text.matchAll(/aria-label="Disable ([^"]+)"/g)].map(([, email]) => email);
    const pagerOf = (answer: Answer) =>
      Object.fromEntries(
        [
          ...(/<nav class="pager" aria-label="User pages">([\s\S]*?)<\/nav>/.exec(answer.text)?.[1] ?? '').matchAll(
            /<a href="([^"]*)">([^<]*)<\/a>/g,
          ),
        ].map(([, href, text]) => [text, href.replaceAll('&amp;', '&')]),
      );
    const filters = 'email=BULK.test&role=viewer&owner=bulk&state=enabled';
    const first = await admin.request('GET', `/users?${filters}`, { headers: html });
    assert.equal(first.status, 200, first.text);
    assert.match(first.text, /<caption id="users-caption">120 users, oldest first<\/caption>/);
    assert.match(first.text, /Page 1 of 3 \(120\)/);
    assert.deepEqual(emailsOf(first), order.slice(0, 50));
    // the filter form shows the filters in use
    assert.match(first.text, /<input id="filter-email" name="email" type="search" value="BULK.test">/);
    assert.match(first.text, /<option value="viewer" selected>viewer<\/option><\/select>\s*<label for="filter-owner">/);
    assert.match(first.text, /<option value="enabled" selected>enabled<\/option>/);
    const kept = 'email=BULK.test&role=viewer&owner=bulk&state=enabled';
    assert.deepEqual(pagerOf(first), { 'Next page': `/users?${kept}&page=2` });
    const second = await admin.request('GET', pagerOf(first)['Next page'], { headers: html });
    assert.deepEqual(emailsOf(second), order.slice(50, 100), "page 2 starts with the user after page 1's last");
    assert.deepEqual(pagerOf(second), {
      'Previous page': `/users?${kept}&page=1`,
      'Next page': `/users?${kept}&page=3`,
    });
    const third = await admin.request('GET', pagerOf(second)['Next page'], { headers: html });
    assert.deepEqual(emailsOf(third), order.slice(100));
    assert.deepEqual(pagerOf(third), { 'Previous page': `/users?${kept}&page=2` });
    // a page past the end says so and links to the last page and the first, filters kept
    assert.deepEqual(pastEndLinks(await admin.request('GET', `/users?${filters}&page=9`, { headers: html })), {
      'Last page (3)': `/users?${kept}&page=3`,
      'First page': `/users?${kept}`,
    });
    // a disable form on page 2 leads back to page 2 of the same listing
    const action = /<form method="post" action="([^"]+\/disable[^"]*)"/.exec(second.text)?.[1].replaceAll('&amp;', '&');
    assert.match(action ?? '', new RegExp(`^/users/usr_\\w+/disable\\?${kept}&page=2$`));
    const csrf = /name="_csrf" value="([^"]+)"/.exec(second.text)?.[1] as string;
    const disabled = await admin.request('POST', action as string, { form: { _csrf: csrf }, headers: html });
    assert.equal(disabled.status, 303, disabled.text);
    assert.equal(disabled.headers.get('location'), `/users?${kept}&page=2&done=user-disabled`);
    // so does a new set-password link: the link is shown on page 2 of the same listing
    const linkForms = [...second.text.matchAll(/<form method="post" action="([^"]+\/reset-link[^"]*)"/g)];
    const linkAction = linkForms.at(-1)?.[1].replaceAll('&amp;', '&');
    assert.match(linkAction ?? '', new RegExp(`^/users/usr_\\w+/reset-link\\?${kept}&page=2$`));
    const linked = await admin.request('POST', linkAction as string, { form: { _csrf: csrf }, headers: html });
    assert.equal(linked.status, 303, linked.text);
    assert.equal(linked.headers.get('location'), `/users?${kept}&page=2`);
    const shown = await admin.request('GET', linked.headers.get('location') as string, { headers: html });
    assert.match(shown.text, /\/reset-password\?token=/, 'the link is shown once on the page it leads to');
    assert.deepEqual(emailsOf(shown), order.slice(51, 101), 'page 2 of the listing, less the user disabled above');
    // the page object: the page, how many, the filters
    const object = await admin.request('GET', `/users?owner=bulk&state=disabled`);
    assert.deepEqual(
      [object.body.data.total, object.body.data.page, object.body.data.pages, object.body.data.users.length],
      [1, 1, 1, 1],
    );
  });

  it('a page that is no page number is the first page to a browser, the REST refusal to a JSON client; never a 500', async () => {
    const listings = [
      '/',
      `/endpoints/${busy}?status=dead`,
      `/dead-letters?endpoint=${busy}`,
      '/find?q=order.created',
      '/tokens',
      '/users?role=viewer',
      '/tenants',
    ];
    for (const listing of listings) {
      const [path, query] = listing.split('?');
      for (const bad of ['0', '-1', 'abc', '1.5', '1e3', '', '0x10', '9999999999999999']) {
        const withBad = `${path}?${query ? `${query}&` : ''}page=${encodeURIComponent(bad)}`;
        const answer = await admin.request('GET', withBad, { headers: html });
        assert.equal(answer.status, 302, `${withBad}: ${answer.status} ${answer.text.slice(0, 200)}`);
        assert.equal(answer.headers.get('location'), listing, withBad);
        const json = await admin.request('GET', withBad);
        assert.equal(json.status, 400, withBad);
        assert.equal(json.body.code, 'APP_PAGINATION_INVALID', withBad);
      }
      // a repeated page is no page number either
      const repeated = await admin.request('GET', `${listing}${query ? '&' : '?'}page=1&page=2`, { headers: html });
      assert.equal(repeated.status, 302, listing);
      assert.equal(repeated.headers.get('location'), listing);
      // the first page itself
      const first = await admin.request('GET', listing, { headers: html });
      assert.equal(first.status, 200, listing);
    }
  });
});
