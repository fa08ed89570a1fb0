/**
 * The console's event-type catalog (api/console/routes/event-types.ts): every role, a portal's
 * tenant too, reads the list (paged) and each type's page; an admin adds a type, changes its
 * description, schema and examples and deprecates it through forms that redirect (303), and REST
 * shows the change; any other role's POST is refused by the core (403 `APP_FORBIDDEN`, the error
 * page to a browser) and changes nothing; bad input shows the form again with what was typed; the
 * endpoint forms suggest the catalog's names.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { createPortalLink } from '../../../../shared/accounts/portal-links.ts';
import { createEventType } from '../../../../shared/webhooks/event-types/index.ts';
import { registerEndpoint } from '../../../../shared/webhooks/endpoints/index.ts';
import { depsOf } from '../../../shared/webhooks/fixtures.ts';
import { Browser, startAccounts, type Answer } from '../../accounts/helpers.ts';

const FLAGS = { webhooks: { allowHttp: true, allowPrivate: true } };
const html = { accept: 'text/html' };

const app = await startAccounts(FLAGS);
const webhooks = depsOf(app.db, FLAGS);

interface Caller {
  browser: Browser;
  csrf: string;
}

const signedIn = async (role: string): Promise<Caller> => {
  const user = await app.user({ role, owner: role === 'admin' ? null : 'acme' });
  const browser = new Browser(app.base);
  return { browser, csrf: await browser.signIn(user.email) };
};

const portal = async (role: 'member' | 'viewer'): Promise<Caller> => {
  const { token } = await createPortalLink(app.accounts, OPERATOR, { owner: 'acme', role });
  const browser = new Browser(app.base);
  const landing = await browser.request('GET', `/portal?token=${encodeURIComponent(token)}`);
  const started = await browser.request('POST', '/portal', { json: { _csrf: landing.body.csrfToken, token } });
  assert.equal(started.status, 200, started.text);
  return { browser, csrf: started.body.csrfToken as string };
};

const post = (caller: Caller, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  caller.browser.request('POST', path, { form: { _csrf: caller.csrf, ...fields }, headers });

/** The type as REST answers it to the operator's view (through an admin's session). */
const restType = async (caller: Caller, name: string) =>
  (await caller.browser.request('GET', `/api/v1/event-types/${encodeURIComponent(name)}`)).body;

const row = async (name: string) =>
  (
    await webhooks.sql`select name, description, schema, examples, deprecated from app_event_types where name = ${name}`
  ).map((found) => ({ ...found }));

/** The text of the page's error list (the layout's alert). */
const alertOf = (answer: Answer) => /<div id="error-summary"[^>]*>([\s\S]*?)<\/div>/.exec(answer.text)?.[1] ?? '';

let admin: Caller;

before(async () => {
  admin = await signedIn('admin');
  await createEventType(webhooks, OPERATOR, {
    name: 'order.paid',
    description: 'An order was paid <in full>',
    schema: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
    examples: [{ id: 42 }],
  });
  await createEventType(webhooks, OPERATOR, { name: 'order.legacy', description: 'The old one', deprecated: true });
});

describe('the catalog pages: every role reads them', () => {
  it('an admin: the list marks deprecated types and offers the add form; a type shows its schema and examples, its form and deprecation button', async () => {
    const list = await admin.browser.request('GET', '/event-types', { html: true });
    assert.equal(list.status, 200, list.text);
    assert.match(list.text, /<title>Event types · app<\/title>/);
    assert.match(list.text, /<a href="\/event-types" aria-current="page">Event types<\/a>/);
    assert.match(
      list.text,
      /<a href="\/event-types\/order\.paid"><code class="name">order\.<wbr>paid<\/code><\/a><\/td>/,
    );
    assert.match(
      list.text,
      /<code class="name">order\.<wbr>legacy<\/code><\/a> <span class="status status-deprecated">deprecated<\/span>/,
    );
    assert.match(list.text, /An order was paid &lt;in full&gt;/, 'escaped');
    assert.match(list.text, /<form class="stack" method="post" action="\/event-types"/);
    assert.match(list.text, /<input type="hidden" name="_csrf" value="[^"]+">/);

    const page = await admin.browser.request('GET', '/event-types/order.paid', { html: true });
    assert.equal(page.status, 200, page.text);
    assert.match(page.text, /<title>Event type order\.paid · app<\/title>/);
    assert.match(
      page.text,
      /<pre tabindex="0" aria-label="Schema of order\.paid" id="type-schema">\{\n {2}&quot;type&quot;: &quot;object&quot;/,
    );
    assert.match(
      page.text,
      /<pre tabindex="0" aria-label="Example 1 of order\.paid" class="example">\{\n {2}&quot;id&quot;: 42\n\}<\/pre>/,
    );
    assert.match(page.text, /<form class="stack" method="post" action="\/event-types\/order\.paid"/);
    assert.match(page.text, /<textarea id="schema" name="schema"[^>]*>\{\n {2}&quot;type&quot;/);
    assert.match(page.text, /<button type="submit" class="secondary">Mark deprecated<\/button>/);
    const legacy = await admin.browser.request('GET', '/event-types/order.legacy', { html: true });
    assert.match(legacy.text, /Mark no longer deprecated/);
    assert.match(legacy.text, /None: any data is accepted\./);

    const json = await admin.browser.request('GET', '/event-types/order.paid');
    assert.equal(json.body.page, 'console/event-type');
    assert.deepEqual(json.body.data.eventType.examples, [{ id: 42 }]);
    assert.deepEqual(Object.keys(json.body._links).sort(), ['api', 'deprecate', 'self', 'update']);
    assert.equal(json.body._links.api.href, '/api/v1/event-types/order.paid');
    const catalog = await admin.browser.request('GET', '/event-types');
    assert.deepEqual(catalog.body._links.create, { href: '/event-types', method: 'POST' });
  });

  for (const who of ['member', 'viewer', 'portal member', 'portal viewer'] as const) {
    it(`a ${who}: the list and a type's page, without a form; the navigation leads there`, async () => {
      const caller = who.startsWith('portal ')
        ? await portal(who === 'portal member' ? 'member' : 'viewer')
        : await signedIn(who);
      const overview = await caller.browser.request('GET', '/', { html: true });
      assert.match(overview.text, /<a href="\/event-types" aria-current="false">Event types<\/a>/);
      const list = await caller.browser.request('GET', '/event-types', { html: true });
      assert.equal(list.status, 200, list.text);
      assert.match(list.text, /<code class="name">order\.<wbr>paid<\/code>/);
      assert.match(list.text, /status-deprecated/);
      assert.doesNotMatch(list.text, /method="post" action="\/event-types/);
      assert.doesNotMatch(list.text, /Add an event type/);
      const page = await caller.browser.request('GET', '/event-types/order.paid', { html: true });
      assert.equal(page.status, 200, page.text);
      assert.match(page.text, /aria-label="Schema of order\.paid"/);
      assert.doesNotMatch(page.text, /method="post" action="\/event-types/);
      assert.doesNotMatch(page.text, /Mark deprecated/);
      const json = await caller.browser.request('GET', '/event-types/order.paid');
      assert.deepEqual(Object.keys(json.body._links).sort(), ['api', 'self']);
      assert.equal((await caller.browser.request('GET', '/event-types')).body._links.create, undefined);
    });
  }

  it('a type not in the catalog is a 404 page', async () => {
    const missing = await admin.browser.request('GET', '/event-types/no.such.type', { html: true });
    assert.equal(missing.status, 404);
    assert.match(alertOf(missing), /APP_WEBHOOK_EVENT_TYPE_NOT_FOUND/);
  });

  it('the list is paged like the other listings', async () => {
    for (let n = 0; n < 50; n += 1)
      await createEventType(webhooks, OPERATOR, { name: `paged.t${String(n).padStart(2, '0')}` });
    const first = await admin.browser.request('GET', '/event-types', { html: true });
    assert.match(first.text, /<nav class="pager" aria-label="Event type pages">/);
    assert.match(first.text, /Page 1 of 2/);
    assert.match(first.text, /<a href="\/event-types\?page=2">Next page<\/a>/);
    const second = await admin.browser.request('GET', '/event-types?page=2', { html: true });
    assert.match(second.text, /Page 2 of 2/);
    assert.match(second.text, /<a href="\/event-types\?page=1">Previous page<\/a>/);
    assert.equal((second.text.match(/<a href="\/event-types\/[^"]+"><code class="name">/g) ?? []).length, 2);
  });
});

describe("an admin's forms", () => {
  it('adds a type (303 to its page), changes its description, schema and examples, deprecates and undeprecates it; REST shows each change', async () => {
    const added = await post(admin, '/event-types', {
      name: 'invoice.sent',
      description: 'An invoice went out',
      schema: '{"type": "object", "required": ["number"]}',
      examples: '[{"number": "F-1"}]',
    });
    assert.equal(added.status, 303, added.text);
    assert.equal(added.headers.get('location'), '/event-types/invoice.sent?done=event-type-added');
    const shown = await admin.browser.request('GET', added.headers.get('location') as string, { html: true });
    assert.match(shown.text, /<p class="notice" role="status">The event type is added to the catalog\.<\/p>/);
    let rest = await restType(admin, 'invoice.sent');
    assert.equal(rest.description, 'An invoice went out');
    assert.deepEqual(rest.schema, { type: 'object', required: ['number'] });
    assert.deepEqual(rest.examples, [{ number: 'F-1' }]);

    const changed = await post(admin, '/event-types/invoice.sent', {
      description: 'An invoice was sent to the customer',
      schema: '{"type": "object", "required": ["number", "total"]}',
      examples: '[{"number": "F-2", "total": 10}]',
    });
    assert.equal(changed.status, 303, changed.text);
    assert.equal(changed.headers.get('location'), '/event-types/invoice.sent?done=event-type-updated');
    rest = await restType(admin, 'invoice.sent');
    assert.equal(rest.description, 'An invoice was sent to the customer');
    assert.deepEqual(rest.schema.required, ['number', 'total']);
    assert.deepEqual(rest.examples, [{ number: 'F-2', total: 10 }]);

    // the form sends every field: emptied, they are removed
    const emptied = await post(admin, '/event-types/invoice.sent', { description: '', schema: '', examples: '' });
    assert.equal(emptied.status, 303, emptied.text);
    rest = await restType(admin, 'invoice.sent');
    assert.deepEqual([rest.description, rest.schema, rest.examples], [null, null, []]);

    const deprecated = await post(admin, '/event-types/invoice.sent', { deprecated: 'true' });
    assert.equal(deprecated.headers.get('location'), '/event-types/invoice.sent?done=event-type-deprecated');
    assert.equal((await restType(admin, 'invoice.sent')).deprecated, true);
    const page = await admin.browser.request('GET', '/event-types/invoice.sent', { html: true });
    assert.match(page.text, /Mark no longer deprecated/);
    const undeprecated = await post(admin, '/event-types/invoice.sent', { deprecated: 'false' });
    assert.equal(undeprecated.headers.get('location'), '/event-types/invoice.sent?done=event-type-undeprecated');
    assert.equal((await restType(admin, 'invoice.sent')).deprecated, false);
  });

  it('bad input shows the form again with what was typed and the reason, never a 500', async () => {
    const typed = { name: 'refund.made', description: 'A <refund>', schema: '{"type": "object",', examples: '' };
    const notJson = await post(admin, '/event-types', typed);
    assert.equal(notJson.status, 422, notJson.text);
    assert.match(alertOf(notJson), /the schema is not valid JSON/);
    assert.match(alertOf(notJson), /APP_WEBHOOK_EVENT_SCHEMA_INVALID/);
    assert.match(notJson.text, /<details class="form" open>/);
    assert.match(notJson.text, /<input id="name" name="name"[^>]* value="refund\.made">/);
    assert.match(notJson.text, /<textarea id="description" name="description"[^>]*>A &lt;refund&gt;<\/textarea>/);
    assert.match(
      notJson.text,
      /<textarea id="schema" name="schema"[^>]* aria-invalid="true" aria-describedby="error-0">\{&quot;type&quot;: &quot;object&quot;,<\/textarea>/,
    );

    const refusedSchema = await post(admin, '/event-types', { ...typed, schema: '{"type": 12}' });
    assert.equal(refusedSchema.status, 422);
    assert.match(alertOf(refusedSchema), /not a valid JSON Schema/);
    assert.match(refusedSchema.text, /<textarea id="schema"[^>]*>\{&quot;type&quot;: 12\}<\/textarea>/);

    const badName = await post(admin, '/event-types', { ...typed, name: 'refund..made', schema: '' });
    assert.equal(badName.status, 422);
    assert.match(alertOf(badName), /invalid webhook event name: must not have an empty segment/);
    assert.match(
      badName.text,
      /<input id="name" name="name"[^>]* value="refund\.\.made" aria-invalid="true" aria-describedby="error-0">/,
    );
    const noName = await post(admin, '/event-types', { ...typed, name: '', schema: '' });
    assert.match(alertOf(noName), /must not be empty/);

    const taken = await post(admin, '/event-types', { ...typed, name: 'order.paid', schema: '' });
    assert.equal(taken.status, 409);
    assert.match(alertOf(taken), /APP_WEBHOOK_EVENT_TYPE_EXISTS/);

    const before = await row('order.paid');
    const badExamples = await post(admin, '/event-types/order.paid', {
      description: 'Changed <here>',
      schema: '{"type": "object", "required": ["id"]}',
      examples: '[{"id": 1}, {"nope": true}]',
    });
    assert.equal(badExamples.status, 422, badExamples.text);
    assert.match(alertOf(badExamples), /example 1 does not match the schema/);
    assert.match(badExamples.text, /<textarea id="description"[^>]*>Changed &lt;here&gt;<\/textarea>/);
    assert.match(
      badExamples.text,
      /<textarea id="examples"[^>]* aria-invalid="true" aria-describedby="error-0">\[\{&quot;id&quot;: 1\}, \{&quot;nope&quot;: true\}\]<\/textarea>/,
    );
    const examplesNotJson = await post(admin, '/event-types/order.paid', {
      description: 'x',
      schema: '',
      examples: '[{"id": 1}',
    });
    assert.equal(examplesNotJson.status, 422);
    assert.match(alertOf(examplesNotJson), /the examples are not valid JSON/);
    assert.deepEqual(await row('order.paid'), before, 'nothing changed');

    for (const answer of [notJson, refusedSchema, badName, taken, badExamples, examplesNotJson])
      assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
  });
});

describe("other roles' forms are refused by the core", () => {
  for (const who of ['member', 'viewer', 'portal member', 'portal viewer'] as const) {
    it(`a ${who}: adding, changing and deprecating answer 403 APP_FORBIDDEN (the error page; problem+json to JSON) and change nothing`, async () => {
      const caller = who.startsWith('portal ')
        ? await portal(who === 'portal member' ? 'member' : 'viewer')
        : await signedIn(who);
      const name = `refused.${who.replace(' ', '-')}`;
      const before = await row('order.paid');
      const attempts: [string, Record<string, string>][] = [
        ['/event-types', { name, description: 'mine' }],
        ['/event-types/order.paid', { description: 'taken over', schema: '', examples: '' }],
        ['/event-types/order.paid', { deprecated: 'true' }],
      ];
      for (const [path, fields] of attempts) {
        const page = await post(caller, path, fields, html);
        assert.equal(page.status, 403, `${path}: ${page.text}`);
        assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
        assert.match(page.text, /data-code="APP_FORBIDDEN"/);
        assert.match(page.text, /may not (add an event type to the catalog|change an event type)/);
        const json = await post(caller, path, fields, { accept: 'application/json' });
        assert.equal(json.status, 403);
        assert.match(json.headers.get('content-type') ?? '', /^application\/problem\+json/);
        assert.equal(json.body.code, 'APP_FORBIDDEN');
      }
      assert.deepEqual(await row(name), []);
      assert.deepEqual(await row('order.paid'), before);
    });
  }
});

describe('the endpoint forms suggest the catalog', () => {
  it("the register form and an endpoint's settings offer the names and their families, deprecated ones left out, free text kept", async () => {
    const form = await admin.browser.request('GET', '/endpoints/new', { html: true });
    assert.equal(form.status, 200, form.text);
    assert.match(
      form.text,
      /<input id="events" name="events" required value="\*" list="event-choices" autocomplete="off" data-suggest-each>/,
    );
    const options = (text: string) =>
      [...(/<datalist id="event-choices">(.*?)<\/datalist>/.exec(text)?.[1] ?? '').matchAll(/value="([^"]+)"/g)].map(
        (match) => match[1],
      );
    const offered = options(form.text);
    assert.ok(offered.includes('order.paid'), offered.join(' '));
    assert.ok(offered.includes('order.*'));
    assert.ok(!offered.includes('order.legacy'), 'deprecated types are not suggested');
    assert.ok(offered.indexOf('order.*') < offered.indexOf('order.paid'));

    const registered = await post(admin, '/endpoints', {
      url: 'http://127.0.0.1:9/suggested',
      events: 'invoice.*, order.paid',
      owner: 'acme',
    });
    assert.equal(registered.status, 303, registered.text);
    const endpoint = await registerEndpoint(webhooks, OPERATOR, { url: 'http://127.0.0.1:9/settings', events: ['*'] });
    const settings = await admin.browser.request('GET', `/endpoints/${endpoint.id}`, { html: true });
    assert.ok(options(settings.text).includes('order.paid'));
  });
});
