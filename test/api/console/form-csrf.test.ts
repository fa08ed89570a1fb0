/**
 * Every state-changing console form, and the signed-in account forms, is refused without its
 * session's CSRF token (docs/accounts-and-console.md "CSRF"): no token, another session's token, or
 * the right token sent from another site is 403 `APP_CSRF_INVALID`; and a GET of a form's address
 * never acts (405 naming POST, or the page the router shows there). The forms are read from the
 * console's router itself, so a form added later is checked too; the records the forms change are
 * compared before and after.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { createToken } from '../../../shared/tokens/tokens.ts';
import { createEventType } from '../../../shared/webhooks/event-types/index.ts';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { consoleRouter } from '../../../api/console/plug.ts';
import { ACCOUNT_PATHS } from '../../../api/accounts/paths.ts';
import { seedAttempts } from '../../helpers/attempt-history.ts';
import { Browser, startConsole } from './harness.ts';

/** The console's paths a method is declared on, as its router declares them. */
const routed = (method: string): string[] =>
  consoleRouter({} as never)
    .stack.filter((layer) => layer.methods.includes(method))
    .map((layer) => layer.path as string);

describe('every console form needs its session’s CSRF token', () => {
  let app: Awaited<ReturnType<typeof startConsole>>;
  let admin: Browser;
  let csrf: string;
  let otherCsrf: string;
  const ids: Record<string, string> = {};
  const html = { accept: 'text/html' };

  /** A digest of every record a console form changes. */
  const records = async () =>
    Object.fromEntries(
      await Promise.all(
        [
          'app_webhooks',
          'app_webhook_deliveries',
          'app_events',
          'app_event_types',
          'app_api_tokens',
          'app_users',
          'app_portal_links',
        ].map(async (table) => {
          const [row] = await app.db.sql.unsafe(
            `select md5(coalesce(string_agg(t::text, ',' order by t::text), '')) as digest from ${table} t`,
          );
          return [table, row.digest as string];
        }),
      ),
    );

  /** `path` with its parameters replaced by the ids of real records. */
  const real = (path: string) =>
    path.replace(/:(\w+)/, (_, name: string) => {
      const section = path.split('/')[1];
      return encodeURIComponent(ids[section] ?? name);
    });

  before(async () => {
    app = await startConsole();
    const deps = { config: app.web.accounts.config as never, sql: app.db.sql, log: app.db.log };
    const endpoint = await registerEndpoint(deps, OPERATOR, { url: 'http://127.0.0.1:9/forms', events: ['*'] });
    ids.endpoints = endpoint.id;
    [ids.deliveries] = await seedAttempts(app.db.sql, endpoint, [
      [{ at: new Date(Date.now() - 60_000), outcome: 'dead', durationMs: 5 }],
    ]);
    ids['event-types'] = (await createEventType(deps, OPERATOR, { name: 'order.created' })).name;
    ids.tokens = (await createToken(deps, { name: 'forms', role: 'member', owner: 'acme' })).id;
    ids.users = (await app.user({ role: 'viewer', owner: 'acme' })).id;
    const user = await app.user({ role: 'admin' });
    admin = new Browser(app.base);
    csrf = await admin.signIn(user.email);
    otherCsrf = await new Browser(app.base).signIn((await app.user({ role: 'admin' })).email);
  });
  after(() => app?.close());

  it('no token, another session’s token, or a token sent from another site: 403 APP_CSRF_INVALID, and nothing changes', async () => {
    const forms = [...routed('POST'), ACCOUNT_PATHS.password, ACCOUNT_PATHS.logout];
    assert.ok(forms.length > 20, `the router's forms: ${forms.join(', ')}`);
    const before = await records();
    for (const form of forms) {
      const path = real(form);
      for (const [why, fields, headers] of [
        ['no token', {}, {}],
        ["another session's token", { _csrf: otherCsrf }, {}],
        ['from another site', { _csrf: csrf }, { origin: 'https://evil.example' }],
        ['from a sibling site, without Origin', { _csrf: csrf }, { origin: '', 'sec-fetch-site': 'same-site' }],
      ] as const) {
        const answer = await admin.request('POST', path, {
          form: {
            ...fields,
            owner: 'acme',
            role: 'viewer',
            email: 'forged@example.com',
            name: 'forged',
            type: 'order.created',
          },
          headers: { ...headers, accept: 'application/json' },
        });
        assert.equal(answer.status, 403, `POST ${path}, ${why}: ${answer.text}`);
        assert.equal(answer.body.code, 'APP_CSRF_INVALID', `POST ${path}, ${why}`);
      }
    }
    assert.deepEqual(await records(), before, 'no record changed');
    assert.equal((await admin.request('GET', '/account')).status, 200, 'the refused sign-out ended no session');
  });

  it('a GET of a form’s address never acts: 405 naming POST, or the form’s own page', async () => {
    const before = await records();
    const pages = new Set(routed('GET'));
    for (const form of routed('POST')) {
      const path = real(form);
      const answer = await admin.request('GET', path, { headers: html });
      if (pages.has(form)) assert.equal(answer.status, 200, `GET ${path} is its page`);
      else {
        assert.equal(answer.status, 405, `GET ${path}`);
        assert.match(answer.headers.get('allow') ?? '', /\bPOST\b/, `GET ${path}`);
      }
    }
    assert.deepEqual(await records(), before, 'no record changed');
  });
});
