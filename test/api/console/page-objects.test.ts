/**
 * The console's routes as JSON (the controller helpers `render` and `negotiate`;
 * docs/accounts-and-console.md "Console"): the page object `{page, data, user, paths, csrfToken,
 * errors?, graphql, _links}` to JSON clients and to client-side visits (`X-App-Page: true`), with
 * `_links` filtered by role like the HAL API's; query errors reach the page, never a 500; the
 * tenant scope of every page; forms need the CSRF token; the portal link signs in once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { runAppInProcess } from '../../helpers/cli.ts';
import { Browser, startConsole } from './harness.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { seedAttempts, type PastAttempt } from '../../helpers/attempt-history.ts';

describe('console page objects', () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let acme: string;
  let globex: string;
  const signedIn = async (role: string, owner?: string) => {
    const user = await app.user({ role, owner: owner ?? (role === 'admin' ? null : 'acme') });
    const browser = new Browser(app.base);
    const csrf = await browser.signIn(user.email);
    return { browser, csrf, user };
  };

  before(async () => {
    app = await startConsole();
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    acme = (await registerEndpoint(deps, OPERATOR, { url: 'http://127.0.0.1:9/acme', events: ['*'], owner: 'acme' }))
      .id;
    globex = (
      await registerEndpoint(deps, OPERATOR, { url: 'http://127.0.0.1:9/globex', events: ['*'], owner: 'globex' })
    ).id;
  });
  after(() => app.close());

  it('GET / to a JSON client: the page object with the query, its data, the user, paths, csrfToken and _links', async () => {
    const { browser, user } = await signedIn('admin');
    const answer = await browser.request('GET', '/');
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    const page = answer.body;
    assert.equal(page.page, 'console/overview');
    assert.deepEqual(Object.keys(page).sort(), [
      '_links',
      'csrfToken',
      'data',
      'graphql',
      'page',
      'paths',
      'props',
      'user',
    ]);
    assert.equal(page.user.email, user.email);
    assert.equal(page.graphql.endpoint, '/_app/gql');
    assert.match(page.graphql.query, /webhookQueue/);
    assert.equal(page.paths.deadLetters, '/dead-letters');
    assert.match(page.csrfToken, /\./);
    assert.deepEqual(
      page.data.webhookEndpoints.nodes.map((node: { externalId: string }) => node.externalId).sort(),
      [acme, globex].sort(),
    );
    assert.equal(page.data.webhookEndpoints.nodes[0].health.successRate24h, null);
    assert.equal(typeof page.data.webhookQueue.depth, 'number');
    assert.equal(page._links.self.href, '/');
    assert.deepEqual(page._links.register, { href: '/endpoints', method: 'POST' });
  });

  it('a client-side visit (X-App-Page: true) gets the page object even when it accepts HTML; a browser gets HTML', async () => {
    const { browser } = await signedIn('admin');
    const visit = await browser.request('GET', '/dead-letters', { html: true, headers: { 'x-app-page': 'true' } });
    assert.equal(visit.status, 200);
    assert.equal(visit.body.page, 'console/dead-letters');
    assert.match(visit.headers.get('vary') ?? '', /X-App-Page/i);
    const html = await browser.request('GET', '/dead-letters', { html: true });
    assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(html.text, /<title>Dead letters · app<\/title>/);
    const csp = html.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline/);
  });

  it("the query runs as the principal: a member sees its own owner only, and another tenant's endpoint is a 404 page, not a 500", async () => {
    const { browser } = await signedIn('member', 'globex');
    const overview = await browser.request('GET', '/');
    assert.deepEqual(
      overview.body.data.webhookEndpoints.nodes.map((node: { owner: string }) => node.owner),
      ['globex'],
    );
    const other = await browser.request('GET', `/endpoints/${acme}`);
    assert.equal(other.status, 404);
    assert.equal(other.body.data.webhookEndpoint, null);
    assert.equal(other.body.errors[0].code, 'APP_WEBHOOK_NOT_FOUND');
    const otherHtml = await browser.request('GET', `/endpoints/${acme}`, { html: true });
    assert.equal(otherHtml.status, 404);
    assert.match(otherHtml.text, /does not exist/);
    assert.doesNotMatch(otherHtml.text, /127\.0\.0\.1:9\/acme/);
    const own = await browser.request('GET', `/endpoints/${globex}`);
    assert.equal(own.status, 200);
    assert.equal(own.body.data.webhookEndpoint.url, 'http://127.0.0.1:9/globex');
  });

  it("_links follow the HAL API's role rules: a viewer gets no action, a member the writer's actions", async () => {
    const viewer = await signedIn('viewer', 'acme');
    const member = await signedIn('member', 'acme');
    const seen = await viewer.browser.request('GET', `/endpoints/${acme}`);
    assert.equal(seen.status, 200);
    // a viewer may try a filter (it changes nothing), and nothing else
    assert.deepEqual(Object.keys(seen.body._links).sort(), ['api', 'filterTest', 'self']);
    const overview = await viewer.browser.request('GET', '/');
    assert.equal(overview.body._links.register, undefined);
    const changed = await member.browser.request('GET', `/endpoints/${acme}`);
    assert.deepEqual(Object.keys(changed.body._links).sort(), [
      'api',
      'disable',
      'filterTest',
      'remove',
      'replay',
      'rotate',
      'secret',
      'self',
      'test',
      'update',
    ]);
    assert.equal(changed.body._links.rotate.method, 'POST');
    const refused = await viewer.browser.request('GET', `/endpoints/${acme}/secret`);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'APP_FORBIDDEN');
  });

  it('a malformed time is a 422 page naming the field, its query run without it', async () => {
    const { browser } = await signedIn('admin');
    const answer = await browser.request('GET', '/dead-letters?since=yesterday');
    assert.equal(answer.status, 422);
    assert.equal(answer.body.errors[0].data.field, 'since');
    assert.ok(answer.body.data.webhookDeliveries);
    const html = await browser.request('GET', '/dead-letters?since=yesterday', { html: true });
    assert.equal(html.status, 422);
    assert.match(html.text, /role="alert"/);
  });

  it("forms need the session's CSRF token; with it they act through the core and redirect", async () => {
    const { browser, csrf } = await signedIn('member', 'acme');
    const without = await browser.request('POST', `/endpoints/${acme}/disable`, { form: { reason: 'x' } });
    assert.equal(without.status, 403);
    const done = await browser.request('POST', `/endpoints/${acme}/disable`, {
      form: { _csrf: csrf, reason: 'maintenance' },
    });
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location'), `/endpoints/${acme}?done=disabled`);
    const page = await browser.request('GET', `/endpoints/${acme}`);
    assert.equal(page.body.data.webhookEndpoint.disabledReason, 'maintenance');
    assert.ok(page.body._links.enable);
    await browser.request('POST', `/endpoints/${acme}/enable`, { form: { _csrf: csrf } });
  });

  it('the settings form sets a filter and an empty one removes it; the try-it box runs one on a sample or a recent event, for a viewer too', async () => {
    const { browser, csrf } = await signedIn('member', 'acme');
    const settings = { _csrf: csrf, url: 'http://127.0.0.1:9/acme', events: '*', description: '', headers: '' };
    const set = await browser.request('POST', `/endpoints/${acme}`, {
      form: { ...settings, filter: '{"data.country": {"$in": ["FR", "DE"]}}' },
    });
    assert.equal(set.status, 303, set.text);
    const page = await browser.request('GET', `/endpoints/${acme}`);
    assert.deepEqual(page.body.data.webhookEndpoint.filter, { 'data.country': { $in: ['FR', 'DE'] } });
    const html = await browser.request('GET', `/endpoints/${acme}`, { html: true });
    assert.match(html.text, /<textarea id="filter" name="filter"[^>]*>\{\n {2}&quot;data\.country&quot;/);
    assert.match(html.text, /<h2 id="try-filter">Try a filter<\/h2>/);
    const refused = await browser.request('POST', `/endpoints/${acme}`, {
      form: { ...settings, filter: '{"$where": 1}' },
    });
    assert.equal(refused.status, 422);
    assert.match(JSON.stringify(refused.body), /APP_WEBHOOK_FILTER_INVALID/);

    const reader = await signedIn('viewer', 'acme');
    const tried = await reader.browser.request('POST', `/endpoints/${acme}/filter-test`, {
      headers: { accept: 'application/json' },
      form: {
        _csrf: reader.csrf,
        filter: '{"data.country": "FR", "data.amount": {"$gte": 100}}',
        eventId: '',
        sample: '{"type": "order.created", "data": {"country": "FR", "amount": 5}}',
      },
    });
    assert.equal(tried.status, 200, tried.text);
    assert.deepEqual(tried.body.props.tryIt.result, {
      matches: false,
      failed: { path: 'data.amount', operator: '$gte', at: 'data.amount.$gte' },
    });
    const shown = await reader.browser.request('POST', `/endpoints/${acme}/filter-test`, {
      html: true,
      form: { _csrf: reader.csrf, filter: '', eventId: '', sample: '{"type": "a"}' },
    });
    assert.match(shown.text, /<p class="notice" role="status" id="try-result">Matches/);
    // one of the endpoint's recent events, as the page offers them
    await runAppInProcess(['events:emit', 'order.created', '--owner', 'acme', '--data', '{"country": "DE"}'], {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      NODE_ENV: 'test',
      DATABASE_URL: app.db.url,
    });
    const offered = (await reader.browser.request('GET', `/endpoints/${acme}`)).body.data.webhookEndpoint.recentEvents;
    assert.ok(offered.length > 0);
    const recent = await reader.browser.request('POST', `/endpoints/${acme}/filter-test`, {
      headers: { accept: 'application/json' },
      form: { _csrf: reader.csrf, filter: '{"data.country": "DE"}', eventId: offered[0].externalId, sample: '' },
    });
    assert.equal(recent.body.props.tryIt.result.matches, true);
    const other = await reader.browser.request('POST', `/endpoints/${globex}/filter-test`, {
      form: { _csrf: reader.csrf, filter: '', eventId: '', sample: '{"type": "a"}' },
    });
    assert.equal(other.status, 404, 'another tenant’s endpoint');
    await browser.request('POST', `/endpoints/${acme}`, { form: { ...settings, filter: '' } });
    assert.equal((await browser.request('GET', `/endpoints/${acme}`)).body.data.webhookEndpoint.filter, null);
  });

  it('the try-it box refuses a sample timestamp no emit can stamp with the emit’s code, marking the sample; a good one is tried', async () => {
    const { browser, csrf } = await signedIn('viewer', 'acme');
    const sample = (timestamp: string) => JSON.stringify({ type: 'order.created', timestamp, data: {} });
    const refused = await browser.request('POST', `/endpoints/${acme}/filter-test`, {
      headers: { accept: 'application/json' },
      form: { _csrf: csrf, filter: '', eventId: '', sample: sample('99999-01-01T00:00:00Z') },
    });
    // a JSON client gets the problem itself, a browser the page again
    assert.equal(refused.status, 422, refused.text);
    assert.match(String(refused.headers.get('content-type')), /^application\/problem\+json/);
    assert.equal(refused.body.code, 'APP_WEBHOOK_EVENT_INVALID');
    assert.equal(refused.body.data.field, 'timestamp');
    const shown = await browser.request('POST', `/endpoints/${acme}/filter-test`, {
      html: true,
      form: { _csrf: csrf, filter: '', eventId: '', sample: sample('yesterday') },
    });
    assert.equal(shown.status, 422);
    assert.match(shown.text, /<textarea id="try-sample" name="sample" spellcheck="false" aria-invalid="true"/);
    assert.match(shown.text, /invalid webhook event timestamp/);
    const tried = await browser.request('POST', `/endpoints/${acme}/filter-test`, {
      headers: { accept: 'application/json' },
      form: {
        _csrf: csrf,
        filter: '{"timestamp": "2026-01-31T10:00:00.000Z"}',
        eventId: '',
        sample: sample('2026-01-31T12:00:00+02:00'),
      },
    });
    assert.equal(tried.status, 200, tried.text);
    assert.deepEqual(tried.body.props.tryIt.result, { matches: true, failed: null });
  });

  it('the settings form sets the delivery settings the CLI sets: rate limit and FIFO ordering, and takes them off again', async () => {
    const { browser, csrf } = await signedIn('member', 'acme');
    const settings = { _csrf: csrf, url: 'http://127.0.0.1:9/acme', events: '*', description: '', headers: '' };
    const set = await browser.request('POST', `/endpoints/${acme}`, {
      form: { ...settings, rateLimit: '5', ordering: 'fifo' },
    });
    assert.equal(set.status, 303);
    const page = await browser.request('GET', `/endpoints/${acme}`);
    assert.equal(page.body.data.webhookEndpoint.rateLimit, 5);
    assert.equal(page.body.data.webhookEndpoint.ordering, 'fifo');
    const refused = await browser.request('POST', `/endpoints/${acme}`, {
      form: { ...settings, ordering: 'sideways' },
    });
    assert.equal(refused.status, 422);
    assert.match(
      JSON.stringify(refused.body),
      /APP_WEBHOOK_ORDERING_INVALID/,
      JSON.stringify(refused.body).slice(0, 500),
    );
    await browser.request('POST', `/endpoints/${acme}`, { form: { ...settings, rateLimit: '', ordering: 'none' } });
    const back = await browser.request('GET', `/endpoints/${acme}`);
    assert.deepEqual(
      [back.body.data.webhookEndpoint.rateLimit, back.body.data.webhookEndpoint.ordering],
      [null, 'none'],
    );
  });

  it('anonymous: browsers go to the sign-in page and come back, JSON clients get 401', async () => {
    const anonymous = new Browser(app.base);
    const html = await anonymous.request('GET', '/dead-letters?endpoint=x', { html: true });
    assert.equal(html.status, 302);
    assert.equal(html.headers.get('location'), `/login?next=${encodeURIComponent('/dead-letters?endpoint=x')}`);
    const json = await anonymous.request('GET', '/');
    assert.equal(json.status, 401);
  });

  it('app portal:link --owner makes a link that signs in once, as a member of that owner only', async () => {
    const env = { DATABASE_URL: app.db.url, NODE_ENV: 'test', APP_PUBLIC_URL: app.base };
    const made = await runAppInProcess(['portal:link', '--owner', 'globex', '--json'], env);
    assert.equal(made.code, 0, made.stderr);
    const link = JSON.parse(made.stdout);
    assert.equal(link.owner, 'globex');
    assert.equal(link.role, 'member');
    const url = new URL(link.url);
    assert.equal(url.pathname, '/portal');
    const token = url.searchParams.get('token') as string;
    const rows = await app.db.sql`select digest from app_portal_links`;
    assert.ok(
      rows.every((row) => row.digest !== token && /^[0-9a-f]{64}$/.test(row.digest)),
      'only a digest is stored',
    );

    const tenant = new Browser(app.base);
    const landing = await tenant.request('GET', `/portal?token=${encodeURIComponent(token)}`);
    const first = await tenant.request('POST', '/portal', { form: { _csrf: landing.body.csrfToken, token } });
    assert.equal(first.status, 303, first.text);
    assert.equal(first.headers.get('location'), '/');
    const overview = await tenant.request('GET', '/');
    assert.deepEqual(overview.body.user, {
      id: 'portal:globex',
      email: null,
      role: 'member',
      owner: 'globex',
      portal: true,
    });
    assert.deepEqual(
      overview.body.data.webhookEndpoints.nodes.map((node: { owner: string }) => node.owner),
      ['globex'],
    );
    assert.equal((await tenant.request('GET', `/endpoints/${acme}`)).status, 404);

    const again = new Browser(app.base);
    const second = await again.request('GET', `/portal?token=${encodeURIComponent(token)}`);
    const refused = await again.request('POST', '/portal', { form: { _csrf: second.body.csrfToken, token } });
    assert.equal(refused.status, 422);
    assert.equal((await again.request('GET', '/')).status, 401);
  });

  it('two racing uses of one portal link: exactly one signs in', async () => {
    const admin = await signedIn('admin');
    const made = await admin.browser.request('POST', '/tenants/portal-link', {
      form: { _csrf: admin.csrf, owner: 'acme', role: 'viewer' },
      headers: { accept: 'text/html' },
    });
    assert.equal(made.status, 303, made.text);
    const shown = await admin.browser.request('GET', made.headers.get('location') as string, { html: true });
    const url = /<pre id="portal-link">([^<]+)<\/pre>/.exec(shown.text)?.[1] as string;
    const token = new URL(url.replace(/&amp;/g, '&')).searchParams.get('token') as string;
    const browsers = [new Browser(app.base), new Browser(app.base), new Browser(app.base)];
    const tokens = await Promise.all(
      browsers.map(async (browser) => (await browser.request('GET', '/portal')).body.csrfToken as string),
    );
    const answers = await Promise.all(
      browsers.map((browser, index) => browser.request('POST', '/portal', { json: { _csrf: tokens[index], token } })),
    );
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 422, 422]);
    const winner = answers.find((answer) => answer.status === 200);
    assert.deepEqual(winner?.body.portal, { owner: 'acme', role: 'viewer' });
  });

  it('users page and tenants are for admins', async () => {
    const { browser } = await signedIn('member', 'acme');
    assert.equal((await browser.request('GET', '/users')).status, 403);
    assert.equal((await browser.request('GET', '/tenants')).status, 403);
    const admin = await signedIn('admin');
    const tenants = await admin.browser.request('GET', '/tenants');
    assert.ok(
      tenants.body.data.tenants.some(
        (tenant: { owner: string; endpoints: number }) => tenant.owner === 'acme' && tenant.endpoints === 1,
      ),
    );
  });

  it("the overview and an endpoint page carry the delivery series; a tenant's never counts another tenant's attempts", async () => {
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    const [ours, theirs] = await Promise.all(
      ['charts-a', 'charts-b'].map((owner) =>
        registerEndpoint(deps, OPERATOR, { url: `http://127.0.0.1:9/${owner}`, events: ['*'], owner }),
      ),
    );
    const ago = (minutes: number, outcome: PastAttempt['outcome']): PastAttempt => ({
      at: new Date(Date.now() - minutes * 60_000),
      outcome,
      durationMs: 40,
    });
    await seedAttempts(app.db.sql, ours, [
      [ago(180, 'done')],
      [ago(180, 'retry'), ago(179, 'done')],
      [ago(10, 'retry'), ago(9, 'dead')],
    ]);
    await seedAttempts(app.db.sql, theirs, [[ago(120, 'dead')], [ago(5, 'done')]]);
    const figures = (series: { totals: Record<string, number> }) => {
      const { done, failed, dead } = series.totals;
      return { done, failed, dead };
    };

    const member = await signedIn('member', 'charts-a');
    const overview = await member.browser.request('GET', '/');
    assert.equal(overview.status, 200);
    const series = overview.body.data.webhookDeliverySeries;
    assert.equal(series.window, 'DAY');
    assert.equal(series.buckets.length, 24);
    assert.deepEqual(figures(series), { done: 2, failed: 2, dead: 1 });
    assert.equal(
      series.buckets.reduce((sum: number, bucket: { attempts: number }) => sum + bucket.attempts, 0),
      5,
    );
    assert.equal(series.totals.p50Ms, 40);

    const lastHour = await member.browser.request('GET', '/?window=hour');
    assert.equal(lastHour.body.data.webhookDeliverySeries.buckets.length, 60);
    assert.equal(lastHour.body.data.webhookDeliverySeries.stepSeconds, 60);
    assert.deepEqual(figures(lastHour.body.data.webhookDeliverySeries), { done: 0, failed: 1, dead: 1 });

    const page = await member.browser.request('GET', `/endpoints/${ours.id}`);
    assert.deepEqual(figures(page.body.data.webhookEndpoint.deliverySeries), { done: 2, failed: 2, dead: 1 });
    assert.equal((await member.browser.request('GET', `/endpoints/${theirs.id}`)).status, 404);

    const admin = await signedIn('admin');
    const picked = await admin.browser.request('GET', '/?owner=charts-b');
    assert.deepEqual(figures(picked.body.data.webhookDeliverySeries), { done: 1, failed: 0, dead: 1 });
    const html = await admin.browser.request('GET', `/endpoints/${theirs.id}`, { html: true });
    assert.match(html.text, /<svg [^>]*role="img" aria-labelledby="chart-counts-title chart-counts-desc"/);
    assert.match(html.text, /<dd data-total="dead">1<\/dd>/);
  });
});
