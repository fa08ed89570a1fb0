/**
 * Tenant isolation, attacked from inside one tenant: callers of tenant `acme` (a member, a
 * viewer, a portal member, a portal viewer, and a member and a viewer API token) try to read or
 * change what belongs to tenant `globex` or to no tenant, on every face (REST, GraphQL, the
 * console). Every refusal must be the answer to an id that does not exist (another tenant's
 * record is not there, so its existence does not leak), nothing may change (read back from the
 * database), and no answer may carry another tenant's endpoint urls, descriptions, payloads or
 * ids, nor count its rows in a total.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { compileRoutes } from '../../../api/model-framework/routing/table.ts';
import { TOKENS_API_ROUTES } from '../../../api/tokens-api/routes.ts';
import { WEBHOOKS_API_ROUTES } from '../../../api/webhooks-api/routes.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { createToken } from '../../../shared/tokens/tokens.ts';
import { registerEndpoint, updateEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { emitEvent } from '../../../shared/webhooks/events/index.ts';
import { depsOf } from '../../shared/webhooks/fixtures.ts';
import { Browser, startAccounts, type Answer } from '../accounts/helpers.ts';
import { signIn, type Who } from './faces.ts';

const FLAGS = { webhooks: { allowHttp: true, allowPrivate: true } };
// every attack is asked many times over: the request limits would answer most of them 429
const app = await startAccounts({ ...FLAGS, rateLimit: { max: 1_000_000, auth: { max: 1_000_000 } } });
const webhooks = depsOf(app.db, FLAGS);
const sql = app.db.sql;

const API = '/api/v1';
const TYPE = 'order.shipped';
/** Words that appear only in records of globex or of no tenant: no answer to acme may carry them. */
const MARKERS = ['globex-only', 'ownerless-only', 'hook-globex', 'hook-ownerless', 'moved-globex-payload'];
const MISSING = { endpoint: 'ep_00000000000000000000000000', event: 'evt_00000000000000000000000000' };
const MISSING_DELIVERY = 'msg_00000000000000000000000000';

interface Records {
  endpoint: string;
  event: string;
  dead: string;
  done: string;
}

/** The callers of acme: signed-in browsers and bearer tokens. */
interface Attacker {
  name: string;
  browser: Browser;
  headers: Record<string, string>;
  /** Whether it may change webhook records at all (member grants). */
  writer: boolean;
  /** Whether it is a signed-in session (the console is for sessions only). */
  session: boolean;
}

const world = {} as {
  acme: Records;
  globex: Records & { token: string; tokenText: string; portalLinks: number };
  ownerless: Records;
  /** globex's endpoint that was moved to acme after globex's event was delivered to it (dead). */
  moved: { endpoint: string; event: string; dead: string };
};
const attackers: Attacker[] = [];

async function records(owner: string | null, label: string): Promise<Records> {
  const made = await registerEndpoint(webhooks, OPERATOR, {
    url: `http://127.0.0.1:9/hook-${label}`,
    events: ['*'],
    owner,
    description: `${label}-only endpoint`,
    headers: { 'x-tenant-secret': `${label}-only-header` },
  });
  const first = await emitEvent(webhooks, OPERATOR, { type: TYPE, data: { note: `${label}-only payload` }, owner });
  const second = await emitEvent(webhooks, OPERATOR, { type: TYPE, data: { note: `${label}-only payload` }, owner });
  const dead = first.deliveries.find((d) => d.endpointId === made.id)?.id as string;
  const done = second.deliveries.find((d) => d.endpointId === made.id)?.id as string;
  await sql`update app_webhook_deliveries set status = 'dead', completed_at = now() where id = ${dead}`;
  await sql`update app_webhook_deliveries set status = 'done', completed_at = now() where id = ${done}`;
  for (const [id, outcome] of [
    [dead, 'dead'],
    [done, 'done'],
  ]) {
    await sql`insert into app_webhook_attempts (delivery_id, attempt, started_at, duration_ms, status, outcome, error)
              values (${id}, 1, now(), 12, ${outcome === 'done' ? 200 : 500}, ${outcome}, ${outcome === 'done' ? null : `${label}-only failure`})`;
  }
  return { endpoint: made.id, event: first.event?.id as string, dead, done };
}

/** Everything of globex and of no tenant, as stored: compared before and after each attack. */
const snapshot = async () => ({
  endpoints: (
    await sql`select id, url, owner, events, description, disabled_at, secrets::text, headers::text from app_webhooks
               where owner is distinct from 'acme' or id = ${world.moved.endpoint} order by id`
  ).map((row) => ({ ...row })),
  deliveries: (
    await sql`select id, status, updated_at, endpoint_id from app_webhook_deliveries where owner is distinct from 'acme' order by id`
  ).map((row) => ({ ...row })),
  events: (await sql`select count(*)::int as n from app_events where owner is distinct from 'acme'`)[0].n,
  tokens: (await sql`select id, revoked_at from app_api_tokens where owner is distinct from 'acme' order by id`).map(
    (row) => ({ ...row }),
  ),
  acmeTokens: (await sql`select count(*)::int as n from app_api_tokens where role = 'admin' or owner <> 'acme'`)[0].n,
  users: (await app.accounts.sql`select id, role, owner, disabled_at from app_users order by id`).map((row) => ({
    ...row,
  })),
  portalLinks: (await app.accounts.sql`select count(*)::int as n from app_portal_links where owner <> 'acme'`)[0].n,
  passwordLinks: (await app.accounts.sql`select count(*)::int as n from app_password_links`)[0].n,
});

before(async () => {
  world.acme = await records('acme', 'acme');
  world.globex = {
    ...(await records('globex', 'globex')),
    ...(await (async () => {
      const made = await createToken(webhooks, { name: 'globex-only token', role: 'member', owner: 'globex' });
      return { token: made.id, tokenText: made.token, portalLinks: 0 };
    })()),
  };
  world.ownerless = await records(null, 'ownerless');
  await app.user({ role: 'member', owner: 'globex', email: 'globex-only@example.com' });
  // an endpoint of globex that got globex's event, then was given to acme: that delivery stays globex's
  const moving = await registerEndpoint(webhooks, OPERATOR, {
    url: 'http://127.0.0.1:9/moving',
    events: [TYPE],
    owner: 'globex',
  });
  const emitted = await emitEvent(webhooks, OPERATOR, {
    type: TYPE,
    data: { note: 'moved-globex-payload' },
    owner: 'globex',
  });
  const movedDead = emitted.deliveries.find((d) => d.endpointId === moving.id)?.id as string;
  await sql`update app_webhook_deliveries set status = 'dead', completed_at = now() where id = ${movedDead}`;
  await sql`insert into app_webhook_attempts (delivery_id, attempt, started_at, duration_ms, status, outcome, error)
            values (${movedDead}, 1, now(), 12, 500, 'dead', 'moved-globex-payload failure')`;
  await updateEndpoint(webhooks, OPERATOR, moving.id, { owner: 'acme' });
  world.moved = { endpoint: moving.id, event: emitted.event?.id as string, dead: movedDead };

  for (const who of ['member', 'viewer', 'portal member', 'portal viewer'] as Who[]) {
    const caller = await signIn(app.base, app.accounts, who);
    attackers.push({
      name: `a ${who} session`,
      browser: caller.browser,
      headers: { 'x-csrf-token': caller.csrf },
      writer: who === 'member' || who === 'portal member',
      session: true,
    });
    (attackers.at(-1) as Attacker & { csrf: string }).csrf = caller.csrf;
  }
  for (const role of ['member', 'viewer'] as const) {
    const made = await createToken(webhooks, { name: `acme ${role} token`, role, owner: 'acme' });
    attackers.push({
      name: `an acme ${role} token`,
      browser: new Browser(app.base),
      headers: { authorization: `Bearer ${made.token}` },
      writer: role === 'member',
      session: false,
    });
  }
});

// --- asking ----------------------------------------------------------------------------------------

const ask = (who: Attacker, method: string, path: string, json?: unknown): Promise<Answer> =>
  who.browser.request(method, path, { ...(json === undefined ? {} : { json }), headers: who.headers });

const form = (who: Attacker, path: string, fields: Record<string, string> = {}): Promise<Answer> =>
  who.browser.request('POST', path, { form: { _csrf: (who as Attacker & { csrf: string }).csrf, ...fields } });

const page = (who: Attacker, path: string): Promise<Answer> => who.browser.request('GET', path, { html: true });

const gql = (who: Attacker, query: string, variables: Record<string, unknown> = {}): Promise<Answer> =>
  ask(who, 'POST', '/_app/gql', { query, variables });

/** Status and code of an answer, whatever the face (the console's error page names its code in `data-code`). */
function outcome(answer: Answer): { status: number; code?: string } {
  if (typeof answer.body === 'string')
    return { status: answer.status, code: /data-code="([^"]+)"/.exec(answer.body)?.[1] };
  const error = answer.body?.errors?.[0];
  if (error) return { status: error.extensions?.status ?? answer.status, code: error.extensions?.code };
  return { status: answer.status, code: answer.body?.code };
}

/** No answer carries a word of globex's or the owner-less records. */
function assertNoMarkers(answer: Answer, what: string) {
  for (const marker of MARKERS) assert.ok(!answer.text.includes(marker), `${what} shows "${marker}"`);
  assert.ok(!answer.text.includes(world.globex.tokenText), `${what} shows globex's token`);
}

/** The answer for another tenant's id is the answer for an id that does not exist, a refusal. */
async function sameAsMissing(what: string, theirs: () => Promise<Answer>, missing: () => Promise<Answer>) {
  const [a, b] = [await theirs(), await missing()];
  assert.notEqual(a.status, 429, `${what}: rate limited, so not attacked`);
  if (process.env.SHOW_OUTCOMES) console.log(what.replace(/^(a|an) /, ''), JSON.stringify(outcome(a)));
  assertNoMarkers(a, what);
  const data = typeof a.body === 'object' ? a.body?.data : undefined;
  const nothing = data !== null && typeof data === 'object' && Object.values(data).every((value) => value === null);
  assert.ok(outcome(a).status >= 300 || nothing, `${what}: answered ${a.status} ${a.text.slice(0, 300)}`);
  assert.deepEqual(outcome(a), outcome(b), `${what}: another tenant's id is answered like a missing one`);
  // and in the same words, but for the id asked about
  const words = (answer: Answer) => {
    if (typeof answer.body !== 'object' || answer.body === null) return undefined;
    const error = answer.body.errors?.[0] ?? answer.body;
    const said = { message: error.message ?? error.detail, data: error.data ?? error.extensions?.data };
    return JSON.stringify(said).replace(/\b(ep|evt|msg|tok)_[0-9A-Za-z]+/g, 'ID');
  };
  assert.equal(words(a), words(b), `${what}: another tenant's id is described like a missing one`);
}

async function unchanged(run: () => Promise<void>) {
  const before = await snapshot();
  await run();
  assert.deepEqual(await snapshot(), before, 'nothing of globex or of no tenant changed');
}

const others = () =>
  [
    ['globex', world.globex],
    ['no tenant', world.ownerless],
  ] as const;

// --- REST ------------------------------------------------------------------------------------------

describe("REST: another tenant's ids are answered like missing ones, and nothing changes", () => {
  const endpointRoutes: [string, (id: string) => string, unknown?][] = [
    ['GET', (id) => `${API}/webhooks/${id}`],
    ['GET', (id) => `${API}/webhooks/${id}?reveal=headers`],
    ['GET', (id) => `${API}/webhooks/${id}/deliveries`],
    ['PATCH', (id) => `${API}/webhooks/${id}`, { description: 'taken' }],
    ['PATCH', (id) => `${API}/webhooks/${id}`, { owner: 'acme' }],
    ['PATCH', (id) => `${API}/webhooks/${id}`, { enabled: false }],
    ['POST', (id) => `${API}/webhooks/${id}/rotate`, {}],
    ['POST', (id) => `${API}/webhooks/${id}/test`, {}],
    ['POST', (id) => `${API}/webhooks/${id}/recover`, { since: '1970-01-01T00:00:00Z' }],
    ['DELETE', (id) => `${API}/webhooks/${id}`],
  ];
  const deliveryRoutes: [string, (id: string) => string, unknown?][] = [
    ['GET', (id) => `${API}/deliveries/${id}`],
    ['POST', (id) => `${API}/deliveries/${id}/retry`, {}],
    ['POST', (id) => `${API}/deliveries/${id}/resend`, {}],
  ];

  it('every route with an endpoint, event or delivery id, by every caller of acme', async () => {
    for (const who of attackers) {
      await unchanged(async () => {
        for (const [tenant, theirs] of others()) {
          for (const [method, path, body] of endpointRoutes) {
            await sameAsMissing(
              `${who.name}: ${method} ${path(`<${tenant}>`)}`,
              () => ask(who, method, path(theirs.endpoint), body),
              () => ask(who, method, path(MISSING.endpoint), body),
            );
          }
          for (const [method, path, body] of deliveryRoutes) {
            for (const id of [theirs.dead, theirs.done]) {
              await sameAsMissing(
                `${who.name}: ${method} ${path(`<${tenant}>`)}`,
                () => ask(who, method, path(id), body),
                () => ask(who, method, path(MISSING_DELIVERY), body),
              );
            }
          }
          await sameAsMissing(
            `${who.name}: GET /events/<${tenant}>`,
            () => ask(who, 'GET', `${API}/events/${theirs.event}`),
            () => ask(who, 'GET', `${API}/events/${MISSING.event}`),
          );
          await sameAsMissing(
            `${who.name}: filter-test on ${tenant}'s event`,
            () => ask(who, 'POST', `${API}/webhooks/filter-test`, { filter: null, eventId: theirs.event }),
            () => ask(who, 'POST', `${API}/webhooks/filter-test`, { filter: null, eventId: MISSING.event }),
          );
        }
        // globex's delivery to the endpoint acme now owns is still globex's
        for (const [method, path, body] of deliveryRoutes) {
          await sameAsMissing(
            `${who.name}: ${method} ${path('<moved>')}`,
            () => ask(who, method, path(world.moved.dead), body),
            () => ask(who, method, path(MISSING_DELIVERY), body),
          );
        }
        await sameAsMissing(
          `${who.name}: GET /events/<globex's event to the moved endpoint>`,
          () => ask(who, 'GET', `${API}/events/${world.moved.event}`),
          () => ask(who, 'GET', `${API}/events/${MISSING.event}`),
        );
      });
    }
  });

  it('every REST route that names a record by id is attacked here (the event-type catalog is shared)', () => {
    const routes = [...compileRoutes(WEBHOOKS_API_ROUTES).routes, ...compileRoutes(TOKENS_API_ROUTES).routes]
      .filter((route) => route.path.includes(':') && !route.path.includes('/event-types/'))
      .map((route) => `${route.method} ${route.path}`)
      .sort();
    assert.deepEqual(routes, [...ATTACKED_ROUTES].sort(), 'a new route needs its attack here');
  });

  it("listings, their totals and headers hold acme's records alone; naming another owner is 404 APP_TENANT_NOT_FOUND", async () => {
    const [{ n: acmeEndpoints }] = await sql`select count(*)::int as n from app_webhooks where owner = 'acme'`;
    const [{ n: acmeEvents }] = await sql`select count(*)::int as n from app_events where owner = 'acme'`;
    const [{ n: acmeDeliveries }] = await sql`select count(*)::int as n from app_webhook_deliveries d
       join app_endpoint_gate g on g.endpoint_id = d.endpoint_id where d.owner = 'acme' and g.owner = 'acme'`;
    for (const who of attackers) {
      for (const [path, key, total] of [
        ['webhooks', 'webhooks', acmeEndpoints],
        ['events', 'events', acmeEvents],
        ['deliveries', 'deliveries', acmeDeliveries],
        ['deliveries?status=dead', 'deliveries', undefined],
        [`deliveries?event=${world.globex.event}`, 'deliveries', 0],
        [`deliveries?event=${world.moved.event}`, 'deliveries', 0],
        [`deliveries?endpoint=${world.globex.endpoint}`, 'deliveries', 0],
        [`deliveries?endpoint=${world.ownerless.endpoint}`, 'deliveries', 0],
        // acme's own deliveries to the endpoint it now owns are listed, never globex's from before
        [`deliveries?endpoint=${world.moved.endpoint}`, 'deliveries', undefined],
        [`webhooks/${world.moved.endpoint}/deliveries`, 'deliveries', undefined],
        [`deliveries?endpoint=${world.moved.endpoint}&status=dead`, 'deliveries', 0],
        [`events?type=${TYPE}`, 'events', acmeEvents],
        ['webhooks?per_page=1', 'webhooks', acmeEndpoints],
      ] as const) {
        const answer = await ask(who, 'GET', `${API}/${path}`);
        assert.equal(answer.status, 200, `${who.name}: ${path}: ${answer.text}`);
        assertNoMarkers(answer, `${who.name}: ${path}`);
        const listed = answer.body._embedded[key] as { owner: string | null }[];
        assert.ok(
          listed.every((item) => item.owner === 'acme'),
          `${who.name}: ${path} lists another owner's`,
        );
        if (total !== undefined) {
          assert.equal(answer.body.total, total, `${who.name}: ${path}: total`);
          const header = answer.headers.get('x-total-count');
          if (header !== null) assert.equal(Number(header), total, `${who.name}: ${path}: X-Total-Count`);
        }
        // the ids asked for come back in the listing's own links; any other is another tenant's
        for (const id of [world.globex.endpoint, world.ownerless.endpoint, world.globex.event, world.moved.dead])
          if (!path.includes(id)) assert.ok(!answer.text.includes(id), `${who.name}: ${path} names ${id}`);
        const link = answer.headers.get('link') ?? '';
        assert.ok(!/owner=(?!acme)/.test(link), `${who.name}: ${path}: Link names another owner`);
      }
      for (const path of [
        'webhooks?owner=globex',
        'events?owner=globex',
        'deliveries?owner=globex',
        'webhooks?without_owner=true',
        'events?without_owner=true',
        'deliveries?without_owner=true',
      ]) {
        const theirs = outcome(await ask(who, 'GET', `${API}/${path}`));
        const nobody = outcome(
          await ask(
            who,
            'GET',
            `${API}/${path.replace('owner=globex', 'owner=nobody-such').replace('without_owner=true', 'owner=nobody-such')}`,
          ),
        );
        assert.deepEqual(theirs, { status: 404, code: 'APP_TENANT_NOT_FOUND' }, `${who.name}: ${path}`);
        assert.deepEqual(theirs, nobody, `${who.name}: ${path} is answered like an owner that does not exist`);
      }
    }
  });

  it("an event's delivery counts are acme's alone (globex's event to the endpoint acme now owns shows nothing)", async () => {
    for (const who of attackers) {
      const answer = await ask(who, 'GET', `${API}/events/${world.acme.event}`);
      assert.equal(answer.status, 200);
      const [{ n }] =
        await sql`select count(*)::int as n from app_webhook_deliveries where event_id = ${world.acme.event}`;
      assert.equal(answer.body.deliveryCounts.total, n);
    }
  });

  it('emits, registrations and endpoint moves for globex or for no owner are 404 APP_TENANT_NOT_FOUND, and write nothing', async () => {
    for (const who of attackers) {
      await unchanged(async () => {
        for (const owner of ['globex', null]) {
          const expected = who.writer
            ? { status: 404, code: 'APP_TENANT_NOT_FOUND' }
            : { status: 403, code: 'APP_FORBIDDEN' };
          const emitted = await ask(who, 'POST', `${API}/events`, { type: TYPE, data: {}, owner });
          assert.deepEqual(outcome(emitted), expected, `${who.name}: emit as ${owner}`);
          const registered = await ask(who, 'POST', `${API}/webhooks`, {
            url: 'http://127.0.0.1:9/intruder',
            events: ['*'],
            owner,
          });
          assert.deepEqual(outcome(registered), expected, `${who.name}: register for ${owner}`);
          const given = await ask(who, 'PATCH', `${API}/webhooks/${world.acme.endpoint}`, { owner });
          assert.deepEqual(outcome(given), expected, `${who.name}: give acme's endpoint to ${owner}`);
        }
      });
    }
    const [{ n }] = await sql`select count(*)::int as n from app_webhooks where url = 'http://127.0.0.1:9/intruder'`;
    assert.equal(n, 0);
  });

  it("an Idempotency-Key or an event id globex used is acme's own: acme never gets globex's answer or event", async () => {
    const globex = new Browser(app.base);
    const auth = { authorization: `Bearer ${world.globex.tokenText}` };
    const theirs = await globex.request('POST', `${API}/events`, {
      json: { type: TYPE, data: { note: 'globex-only keyed' }, eventId: 'order-42' },
      headers: { ...auth, 'idempotency-key': 'shared-key-1' },
    });
    assert.equal(theirs.status, 202, theirs.text);
    for (const who of attackers.filter((caller) => caller.writer)) {
      const key = `shared-key-1`;
      const mine = await ask(who, 'POST', `${API}/events`, {
        type: TYPE,
        data: { note: 'acme keyed' },
        eventId: 'order-42',
      });
      assertNoMarkers(mine, `${who.name}: emit with globex's event id`);
      // 200: a duplicate of the event another caller of acme emitted with the same id, acme's own
      assert.ok(mine.status === 202 || mine.status === 200, mine.text);
      assert.equal(mine.body.owner, 'acme');
      assert.notEqual(mine.body.externalId, theirs.body.externalId, `${who.name}: answered globex's event`);
      const keyed = await who.browser.request('POST', `${API}/events`, {
        json: { type: TYPE, data: { note: 'globex-only keyed' }, eventId: 'order-42' },
        headers: { ...who.headers, 'idempotency-key': key },
      });
      assertNoMarkers(keyed, `${who.name}: emit with globex's Idempotency-Key`);
      assert.notEqual(keyed.body.externalId, theirs.body.externalId, `${who.name}: replayed globex's answer`);
      assert.equal(keyed.headers.get('idempotent-replayed'), null);
    }
    const [{ n }] =
      await sql`select count(*)::int as n from app_events where source_id = 'order-42' and owner = 'globex'`;
    assert.equal(n, 1);
  });

  it("recovering acme's endpoint that once was globex's replays none of globex's dead deliveries", async () => {
    const member = attackers.find((who) => who.name === 'a member session') as Attacker;
    await unchanged(async () => {
      const answer = await ask(member, 'POST', `${API}/webhooks/${world.moved.endpoint}/recover`, {
        since: '1970-01-01T00:00:00Z',
      });
      assert.equal(answer.status < 400, true, answer.text);
    });
  });
});

// --- tokens ----------------------------------------------------------------------------------------

describe('tokens: no caller of acme mints beyond its reach, sees or revokes another tenant’s', () => {
  it('minting for globex, for no owner or of a higher role is 403 APP_FORBIDDEN; portal sessions and tokens mint nothing', async () => {
    for (const who of attackers) {
      await unchanged(async () => {
        for (const body of [
          { name: 'intruder', owner: 'globex' },
          { name: 'intruder', owner: null },
          { name: 'intruder', role: 'admin' },
          { name: 'intruder', role: 'admin', owner: null },
          ...(who.name.includes('viewer') ? [{ name: 'intruder', role: 'member' }] : []),
          ...(who.name.includes('portal') || !who.session ? [{ name: 'intruder' }] : []),
        ]) {
          const answer = await ask(who, 'POST', `${API}/tokens`, body);
          assert.deepEqual(
            { status: outcome(answer).status, code: outcome(answer).code },
            { status: 403, code: 'APP_FORBIDDEN' },
            `${who.name}: mint ${JSON.stringify(body)}: ${answer.text}`,
          );
        }
        if (who.session) {
          // the console's form, with an owner field it does not offer and a role above the caller's
          const forms: Record<string, string>[] = [
            { name: 'intruder', owner: 'globex' },
            { name: 'intruder', role: 'admin' },
          ];
          for (const fields of forms) {
            const answer = await form(who, '/tokens', fields);
            assertNoMarkers(answer, `${who.name}: console mint ${JSON.stringify(fields)}`);
          }
        }
      });
      const [{ n }] =
        await sql`select count(*)::int as n from app_api_tokens where name = 'intruder' and (owner is distinct from 'acme' or role = 'admin')`;
      assert.equal(n, 0, `${who.name}: no token beyond its reach was minted`);
    }
  });

  it("globex's token is not listed, and revoking it is answered like a missing token", async () => {
    for (const who of attackers) {
      await unchanged(async () => {
        const listed = await ask(who, 'GET', `${API}/tokens`);
        assertNoMarkers(listed, `${who.name}: tokens`);
        assert.ok(!listed.text.includes(world.globex.token), `${who.name}: lists globex's token`);
        await sameAsMissing(
          `${who.name}: revoke globex's token`,
          () => ask(who, 'DELETE', `${API}/tokens/${world.globex.token}`),
          () => ask(who, 'DELETE', `${API}/tokens/tok_00000000000000000000000000`),
        );
        if (who.session) {
          const page = await who.browser.request('GET', '/tokens', { html: true });
          assertNoMarkers(page, `${who.name}: console tokens`);
          const a = await form(who, `/tokens/${world.globex.token}/revoke`);
          const b = await form(who, '/tokens/tok_00000000000000000000000000/revoke');
          assert.deepEqual(outcome(a), outcome(b), `${who.name}: console revoke`);
        }
      });
    }
  });
});

// --- GraphQL ---------------------------------------------------------------------------------------

describe("GraphQL: another tenant's records are null or not found like missing ones, counts are acme's", () => {
  const ENDPOINT = `externalId owner url description headers health { pending dead attempts24h lastFailure }
    deliverySeries { totals { attempts dead } } recentEvents { externalId }`;

  it('every query and mutation the schema offers is attacked here', async () => {
    const admin = attackers[0];
    const answer = await gql(admin, '{ __schema { queryType { fields { name } } mutationType { fields { name } } } }');
    const queries = answer.body.data.__schema.queryType.fields.map((f: { name: string }) => f.name).sort();
    assert.deepEqual(queries, [...QUERIES].sort(), 'a new query needs its attack here');
    const mutations = answer.body.data.__schema.mutationType.fields.map((f: { name: string }) => f.name).sort();
    assert.deepEqual(mutations, [...MUTATIONS].sort(), 'a new mutation needs its attack here');
  });

  it('lookups by id, by every caller', async () => {
    for (const who of attackers) {
      for (const [tenant, theirs] of [...others(), ['moved', { ...world.moved, done: world.moved.dead }] as const]) {
        for (const [query, vars, missing] of [
          [
            `query ($id: ID!) { webhookEndpoint(id: $id) { ${ENDPOINT} } }`,
            { id: theirs.endpoint },
            { id: MISSING.endpoint },
          ],
          [
            'query ($id: ID!) { webhookEvent(id: $id) { externalId data owner } }',
            { id: theirs.event },
            { id: MISSING.event },
          ],
          [
            'query ($id: ID!) { webhookDelivery(id: $id) { externalId event { externalId data } attempts { error } } }',
            { id: theirs.dead },
            { id: MISSING_DELIVERY },
          ],
          [
            'query ($id: ID) { testWebhookFilter(eventId: $id, filter: { data: { note: "x" } }) { matches } }',
            { id: theirs.event },
            { id: MISSING.event },
          ],
        ] as const) {
          if (tenant === 'moved' && query.includes('webhookEndpoint(')) continue; // acme's own now
          await sameAsMissing(
            `${who.name}: ${query.slice(0, 40)} <${tenant}>`,
            () => gql(who, query, vars),
            () => gql(who, query, missing),
          );
        }
      }
    }
  });

  it("listings, nested fields and figures hold acme's records alone", async () => {
    const [{ n: acmeEndpoints }] = await sql`select count(*)::int as n from app_webhooks where owner = 'acme'`;
    const [{ n: acmeEvents }] = await sql`select count(*)::int as n from app_events where owner = 'acme'`;
    const [{ n: acmeDead }] = await sql`select count(*)::int as n from app_webhook_deliveries d
       join app_endpoint_gate g on g.endpoint_id = d.endpoint_id where d.owner = 'acme' and g.owner = 'acme' and d.status = 'dead'`;
    for (const who of attackers) {
      const answer = await gql(
        who,
        `{
          webhookEndpoints(perPage: 100) { total nodes { ${ENDPOINT} } }
          webhookEvents(perPage: 100) { total nodes { externalId owner data deliveryCounts { total } } }
          webhookDeliveries(perPage: 100) { total nodes { externalId owner event { externalId owner data } } }
          dead: webhookDeliveries(filter: { status: [DEAD] }) { total }
          webhookQueue { dead pending }
          webhookDeliverySeries { totals { attempts dead } }
          eventTypes { total }
        }`,
      );
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.errors, undefined, `${who.name}: ${JSON.stringify(answer.body.errors)}`);
      assertNoMarkers(answer, `${who.name}: GraphQL listings`);
      const data = answer.body.data;
      assert.equal(data.webhookEndpoints.total, acmeEndpoints);
      assert.equal(data.webhookEvents.total, acmeEvents);
      for (const list of [data.webhookEndpoints, data.webhookEvents, data.webhookDeliveries])
        assert.ok(
          list.nodes.every((node: { owner: string }) => node.owner === 'acme'),
          `${who.name}: another owner listed`,
        );
      assert.equal(data.dead.total, acmeDead, `${who.name}: dead total`);
      assert.equal(data.webhookQueue.dead, acmeDead, `${who.name}: queue's dead count`);
      // acme's attempts: one dead and one done of its own records (globex's to the moved endpoint are not counted)
      assert.deepEqual(data.webhookDeliverySeries.totals, { attempts: 2, dead: 1 }, `${who.name}: series`);
      const moved = data.webhookEndpoints.nodes.find(
        (node: { externalId: string }) => node.externalId === world.moved.endpoint,
      );
      assert.equal(moved.health.dead, 0, `${who.name}: the moved endpoint's health counts globex's dead delivery`);
      assert.equal(moved.health.lastFailure, null);
    }
  });

  it('filters naming another tenant: 404 APP_TENANT_NOT_FOUND like an owner that does not exist, or nothing', async () => {
    for (const who of attackers) {
      for (const query of [
        '{ webhookEndpoints(filter: { owner: "%" }) { total } }',
        '{ webhookEvents(filter: { owner: "%" }) { total } }',
        '{ webhookDeliveries(filter: { owner: "%" }) { total } }',
        '{ webhookQueue(owner: "%") { dead } }',
        '{ webhookDeliverySeries(owner: "%") { totals { attempts } } }',
      ]) {
        const theirs = outcome(await gql(who, query.replace('%', 'globex')));
        assert.deepEqual(theirs, { status: 404, code: 'APP_TENANT_NOT_FOUND' }, `${who.name}: ${query}`);
        assert.deepEqual(theirs, outcome(await gql(who, query.replace('%', 'nobody-such'))));
      }
      for (const query of [
        '{ webhookEndpoints(filter: { withoutOwner: true }) { total } }',
        '{ webhookQueue(withoutOwner: true) { dead } }',
        '{ webhookDeliverySeries(withoutOwner: true) { totals { attempts } } }',
      ]) {
        assert.deepEqual(
          outcome(await gql(who, query)),
          { status: 404, code: 'APP_TENANT_NOT_FOUND' },
          `${who.name}: ${query}`,
        );
      }
      for (const id of [world.globex.endpoint, world.ownerless.endpoint, world.moved.endpoint]) {
        const answer = await gql(
          who,
          'query ($id: ID) { webhookDeliveries(filter: { endpoint: $id }) { total nodes { externalId } } }',
          { id },
        );
        // the endpoint acme now owns has acme's deliveries since (other tests emit), never globex's before
        const [{ n }] =
          await sql`select count(*)::int as n from app_webhook_deliveries where endpoint_id = ${id} and owner = 'acme'`;
        assert.equal(
          answer.body.data.webhookDeliveries.total,
          id === world.moved.endpoint ? n : 0,
          `${who.name}: deliveries of ${id}`,
        );
        assert.ok(!answer.text.includes(world.moved.dead));
      }
      for (const id of [world.globex.event, world.moved.event]) {
        const answer = await gql(who, 'query ($id: ID) { webhookDeliveries(filter: { event: $id }) { total } }', {
          id,
        });
        assert.equal(answer.body.data.webhookDeliveries.total, 0, `${who.name}: deliveries of ${id}`);
      }
    }
  });

  it('every mutation on another tenant’s ids is answered like missing ids, and nothing changes', async () => {
    for (const who of attackers) {
      await unchanged(async () => {
        for (const [tenant, theirs] of others()) {
          for (const [query, id, missing] of [
            [
              'mutation ($id: ID!) { updateWebhookEndpoint(id: $id, input: { description: "taken" }) { externalId } }',
              theirs.endpoint,
              MISSING.endpoint,
            ],
            [
              'mutation ($id: ID!) { updateWebhookEndpoint(id: $id, input: { owner: "acme" }) { externalId } }',
              theirs.endpoint,
              MISSING.endpoint,
            ],
            [
              'mutation ($id: ID!) { updateWebhookEndpoint(id: $id, input: { enabled: false }) { externalId } }',
              theirs.endpoint,
              MISSING.endpoint,
            ],
            ['mutation ($id: ID!) { removeWebhookEndpoint(id: $id) }', theirs.endpoint, MISSING.endpoint],
            ['mutation ($id: ID!) { rotateWebhookSecret(id: $id) { secret } }', theirs.endpoint, MISSING.endpoint],
            ['mutation ($id: ID!) { sendTestWebhookEvent(id: $id) { externalId } }', theirs.endpoint, MISSING.endpoint],
            [
              'mutation ($id: ID!) { recoverWebhookDeliveries(id: $id, since: "1970-01-01T00:00:00Z") { recovered } }',
              theirs.endpoint,
              MISSING.endpoint,
            ],
            ['mutation ($id: ID!) { retryWebhookDelivery(id: $id) { externalId } }', theirs.dead, MISSING_DELIVERY],
            ['mutation ($id: ID!) { resendWebhookDelivery(id: $id) { externalId } }', theirs.done, MISSING_DELIVERY],
            [
              'mutation ($id: ID!) { retryWebhookDelivery(id: $id) { externalId } }',
              world.moved.dead,
              MISSING_DELIVERY,
            ],
          ] as const) {
            await sameAsMissing(
              `${who.name}: ${query.slice(0, 50)} <${tenant}>`,
              () => gql(who, query, { id }),
              () => gql(who, query, { id: missing }),
            );
          }
          const emitted = outcome(
            await gql(
              who,
              'mutation ($input: EmitWebhookEventInput!) { emitWebhookEvent(input: $input) { duplicate } }',
              {
                input: { type: TYPE, data: {}, owner: tenant === 'globex' ? 'globex' : null },
              },
            ),
          );
          assert.deepEqual(
            emitted,
            who.writer ? { status: 404, code: 'APP_TENANT_NOT_FOUND' } : { status: 403, code: 'APP_FORBIDDEN' },
            `${who.name}: emit as ${tenant}`,
          );
          const registered = outcome(
            await gql(
              who,
              'mutation ($input: RegisterWebhookEndpointInput!) { registerWebhookEndpoint(input: $input) { secret } }',
              {
                input: {
                  url: 'http://127.0.0.1:9/intruder',
                  events: ['*'],
                  owner: tenant === 'globex' ? 'globex' : null,
                },
              },
            ),
          );
          assert.deepEqual(
            registered,
            who.writer ? { status: 404, code: 'APP_TENANT_NOT_FOUND' } : { status: 403, code: 'APP_FORBIDDEN' },
            `${who.name}: register for ${tenant}`,
          );
        }
      });
    }
  });
});

/** The schema's mutations, each attacked above (the event-type catalog's are an admin's: the matrix's). */
const MUTATIONS = [
  'registerWebhookEndpoint',
  'updateWebhookEndpoint',
  'removeWebhookEndpoint',
  'rotateWebhookSecret',
  'sendTestWebhookEvent',
  'recoverWebhookDeliveries',
  'retryWebhookDelivery',
  'resendWebhookDelivery',
  'emitWebhookEvent',
  'createEventType',
  'updateEventType',
];

/** The REST routes with an id, each attacked above. */
const ATTACKED_ROUTES = [
  'GET /api/v1/webhooks/:externalId',
  'PATCH /api/v1/webhooks/:externalId',
  'DELETE /api/v1/webhooks/:externalId',
  'POST /api/v1/webhooks/:externalId/rotate',
  'POST /api/v1/webhooks/:externalId/test',
  'POST /api/v1/webhooks/:externalId/recover',
  'GET /api/v1/webhooks/:externalId/deliveries',
  'GET /api/v1/events/:externalId',
  'GET /api/v1/deliveries/:externalId',
  'POST /api/v1/deliveries/:externalId/retry',
  'POST /api/v1/deliveries/:externalId/resend',
  'DELETE /api/v1/tokens/:externalId',
];

/** The schema's queries, each attacked above. */
const QUERIES = [
  'webhookEndpoints',
  'webhookEndpoint',
  'webhookEvents',
  'webhookEvent',
  'webhookDeliveries',
  'webhookDelivery',
  'testWebhookFilter',
  'webhookQueue',
  'webhookDeliverySeries',
  'eventTypes',
  'eventType',
];

// --- the console -----------------------------------------------------------------------------------

describe("the console: another tenant's pages and forms are answered like missing ones", () => {
  const sessions = () => attackers.filter((who) => who.session);

  it('pages with another tenant’s ids', async () => {
    for (const who of sessions()) {
      for (const [tenant, theirs] of others()) {
        for (const path of [
          (id: string) => `/endpoints/${id}`,
          (id: string) => `/endpoints/${id}/secret`,
          (id: string) => `/endpoints/${id}/rotated`,
          (id: string) => `/endpoints/${id}/created`,
          (id: string) => `/endpoints/${id}/remove`,
        ]) {
          await sameAsMissing(
            `${who.name}: ${path(`<${tenant}>`)}`,
            () => page(who, path(theirs.endpoint)),
            () => page(who, path(MISSING.endpoint)),
          );
        }
        for (const id of [theirs.dead, theirs.done, world.moved.dead]) {
          await sameAsMissing(
            `${who.name}: /deliveries/<${tenant}>`,
            () => page(who, `/deliveries/${id}`),
            () => page(who, `/deliveries/${MISSING_DELIVERY}`),
          );
        }
        for (const [path, missing] of [
          [`/find?q=${theirs.event}`, `/find?q=${MISSING.event}`],
          [`/find?q=${world.moved.event}`, `/find?q=${MISSING.event}`],
          [`/dead-letters?endpoint=${theirs.endpoint}`, `/dead-letters?endpoint=${MISSING.endpoint}`],
          [`/dead-letters/replay?endpoint=${theirs.endpoint}`, `/dead-letters/replay?endpoint=${MISSING.endpoint}`],
        ]) {
          const [a, b] = [await page(who, path), await page(who, missing)];
          assertNoMarkers(a, `${who.name}: ${path}`);
          assert.equal(a.status, b.status, `${who.name}: ${path}`);
          for (const id of [theirs.dead, theirs.done, world.moved.dead])
            assert.ok(!a.text.includes(id), `${who.name}: ${path} names ${id}`);
        }
      }
    }
  });

  it("the overview, the lists and the find page show acme's records alone, whatever owner is asked for", async () => {
    for (const who of sessions()) {
      for (const path of [
        '/',
        '/?owner=globex',
        '/?owner=-',
        '/dead-letters',
        '/dead-letters?owner=globex',
        '/dead-letters?owner=-',
        `/find?q=${TYPE}`,
        '/event-types',
        '/events/new',
        '/endpoints/new',
        '/tokens',
        // the endpoint acme now owns: its page, deliveries and dead letters show nothing from globex's time
        `/endpoints/${world.moved.endpoint}`,
        `/dead-letters?endpoint=${world.moved.endpoint}`,
        `/dead-letters/replay?endpoint=${world.moved.endpoint}`,
      ]) {
        const answer = await page(who, path);
        assertNoMarkers(answer, `${who.name}: ${path}`);
        for (const id of [
          world.globex.endpoint,
          world.ownerless.endpoint,
          world.globex.event,
          world.globex.dead,
          world.moved.dead,
        ])
          assert.ok(!answer.text.includes(id), `${who.name}: ${path} names ${id}`);
        // the owner asked for comes back in the page's own links, and is not read
        if (!path.includes('globex')) assert.ok(!answer.text.includes('globex'), `${who.name}: ${path} names globex`);
      }
      for (const path of ['/tenants', '/users']) {
        const answer = await page(who, path);
        assert.deepEqual(outcome(answer), { status: 403, code: 'APP_FORBIDDEN' }, `${who.name}: ${path}`);
        assert.ok(!answer.text.includes('globex'), `${who.name}: ${path} names globex`);
      }
    }
  });

  it('forms with another tenant’s ids, or naming another owner, change nothing', async () => {
    for (const who of sessions()) {
      await unchanged(async () => {
        for (const [tenant, theirs] of others()) {
          for (const [path, fields] of [
            [
              (id: string) => `/endpoints/${id}`,
              { url: 'http://127.0.0.1:9/taken', events: '*', description: 'taken', owner: 'acme' },
            ],
            [(id: string) => `/endpoints/${id}/disable`, { reason: 'taken' }],
            [(id: string) => `/endpoints/${id}/enable`, {}],
            [(id: string) => `/endpoints/${id}/rotate`, { grace: '0' }],
            [(id: string) => `/endpoints/${id}/secret`, {}],
            [(id: string) => `/endpoints/${id}/test`, { data: '{}' }],
            [(id: string) => `/endpoints/${id}/remove`, {}],
            [(id: string) => `/endpoints/${id}/filter-test`, { filter: '{}', eventId: world.acme.event }],
          ] as const) {
            await sameAsMissing(
              `${who.name}: POST ${path(`<${tenant}>`)}`,
              () => form(who, path(theirs.endpoint), fields as Record<string, string>),
              () => form(who, path(MISSING.endpoint), fields as Record<string, string>),
            );
          }
          for (const action of ['retry', 'resend']) {
            for (const id of [theirs.dead, theirs.done, world.moved.dead]) {
              await sameAsMissing(
                `${who.name}: POST /deliveries/<${tenant}>/${action}`,
                () => form(who, `/deliveries/${id}/${action}`),
                () => form(who, `/deliveries/${MISSING_DELIVERY}/${action}`),
              );
            }
          }
          await sameAsMissing(
            `${who.name}: POST /endpoints/<acme>/filter-test on <${tenant}>'s event`,
            () => form(who, `/endpoints/${world.acme.endpoint}/filter-test`, { filter: '{}', eventId: theirs.event }),
            () => form(who, `/endpoints/${world.acme.endpoint}/filter-test`, { filter: '{}', eventId: MISSING.event }),
          );
          await sameAsMissing(
            `${who.name}: replay <${tenant}>'s dead letters`,
            () => form(who, '/dead-letters/replay', { endpoint: theirs.endpoint }),
            () => form(who, '/dead-letters/replay', { endpoint: MISSING.endpoint }),
          );
          // the owner fields of non-admins are not read: these act for acme, or are refused
          const owner = tenant === 'globex' ? 'globex' : '-';
          await form(who, '/dead-letters/replay', { owner });
          await form(who, '/events', { type: TYPE, data: '{}', owner });
          await form(who, '/endpoints', { url: 'http://127.0.0.1:9/intruder', events: '*', owner });
          await form(who, '/users', { email: 'intruder@example.com', role: 'admin', owner });
          await form(who, '/tenants/portal-link', { owner: 'globex', role: 'member' });
          await form(
            who,
            `/users/${(await sql`select id from app_users where email = 'globex-only@example.com'`)[0].id}/disable`,
          );
          await form(
            who,
            `/users/${(await sql`select id from app_users where email = 'globex-only@example.com'`)[0].id}/reset-link`,
          );
        }
      });
      const [{ n }] =
        await sql`select count(*)::int as n from app_webhooks where url = 'http://127.0.0.1:9/intruder' and owner is distinct from 'acme'`;
      assert.equal(n, 0, `${who.name}: registered for another owner`);
    }
  });
});

// --- portal sessions and REST ------------------------------------------------------------------------

describe('a portal session reaches its own tenant alone, and mints nothing', () => {
  it("a portal session's REST answers are acme's, its token listing empty", async () => {
    for (const who of attackers.filter((caller) => caller.name.includes('portal'))) {
      const listed = await ask(who, 'GET', `${API}/tokens`);
      assert.ok(listed.status === 200 || listed.status === 403, listed.text);
      if (listed.status === 200) assert.equal(listed.body.total, 0, `${who.name}: tokens listed`);
      const mine = await ask(who, 'GET', `${API}/webhooks`);
      assert.equal(mine.status, 200);
      assert.ok(mine.body._embedded.webhooks.every((item: { owner: string }) => item.owner === 'acme'));
    }
  });
});
