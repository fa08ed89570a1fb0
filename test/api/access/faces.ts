/**
 * The cases of the permission matrix (matrix.test.ts): for every operation of the permission
 * table, what it acts on (made fresh for each test through the core, as the operator), how each
 * face that offers it is asked to run it, and what to read back from the database to see whether
 * anything changed. Every principal is a browser with a session (a password user or a tenant
 * portal session) of tenant `acme`, or an admin; REST and GraphQL are called with the session
 * cookie and its CSRF token, the console with its own forms.
 */
import { randomUUID } from 'node:crypto';
import { OPERATOR } from '../../../shared/access/actor.ts';
import type { Operation } from '../../../shared/access/permissions.ts';
import { createPortalLink, usePortalLink } from '../../../shared/accounts/portal-links.ts';
import type { AccountDeps } from '../../../shared/accounts/deps.ts';
import { createUser, setUserDisabled } from '../../../shared/accounts/users.ts';
import { createToken } from '../../../shared/tokens/tokens.ts';
import { createEventType } from '../../../shared/webhooks/event-types/index.ts';
import { registerEndpoint, disableEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { sendToEndpoint } from '../../../shared/webhooks/events/index.ts';
import type { WebhookDeps } from '../../../shared/webhooks/deps.ts';
import { Browser, PASSWORD, type Answer } from '../accounts/helpers.ts';

export const FACES = ['rest', 'graphql', 'console'] as const;
export type Face = (typeof FACES)[number];

/** Who asks: the grants of the permission table, each signed in to a browser. */
export const WHO = ['admin', 'member', 'viewer', 'portal member', 'portal viewer'] as const;
export type Who = (typeof WHO)[number];

export const OWNER = 'acme';

/** A signed-in browser and what the cases need to know of it. */
export interface Caller {
  who: Who;
  browser: Browser;
  csrf: string;
  /** The user it is signed in as (null: a portal session). */
  userId: string | null;
}

/** What a test has to work with. */
export interface Fixture {
  webhooks: WebhookDeps;
  accounts: AccountDeps;
  caller: Caller;
}

/** What an answer says, whatever the face: refused with 403, or done. */
export interface Outcome {
  status: number;
  code?: string;
}

type Target = Record<string, string>;

interface Ask {
  /** The REST route this asks (`METHOD /path` as the route table mounts it), for the completeness check. */
  route?: string;
  /** The GraphQL mutation this asks, for the completeness check. */
  field?: string;
  /** The console form or page this asks (`METHOD /path` as its router mounts it). */
  form?: string;
  run: (fixture: Fixture, target: Target) => Promise<Outcome>;
}

export interface Case {
  /** Makes what the operation acts on. */
  prepare: (fixture: Fixture) => Promise<Target>;
  /** What the operation would change, read back; undefined for reads (nothing to change). */
  readBack?: (fixture: Fixture, target: Target) => Promise<unknown>;
  faces: Partial<Record<Face, Ask>>;
}

// --- how each face is asked ---------------------------------------------------------------

// a browser's refusal is the console's error page, which names its code in `data-code`
const outcomeOf = (answer: Answer): Outcome => ({
  status: answer.status,
  code: typeof answer.body === 'string' ? /data-code="([^"]+)"/.exec(answer.body)?.[1] : answer.body?.code,
});

async function rest(fixture: Fixture, method: string, path: string, json?: unknown): Promise<Outcome> {
  const { browser, csrf } = fixture.caller;
  return outcomeOf(
    await browser.request(method, path, { ...(json === undefined ? {} : { json }), headers: { 'x-csrf-token': csrf } }),
  );
}

async function graphql(fixture: Fixture, query: string, variables: Record<string, unknown> = {}): Promise<Outcome> {
  const { browser, csrf } = fixture.caller;
  const answer = await browser.request('POST', '/_app/gql', {
    json: { query, variables },
    headers: { 'x-csrf-token': csrf },
  });
  const error = answer.body?.errors?.[0];
  if (answer.status !== 200 || !error) return { status: answer.status, code: answer.body?.code };
  return { status: error.extensions?.status ?? 500, code: error.extensions?.code };
}

async function form(fixture: Fixture, path: string, fields: Record<string, string> = {}): Promise<Outcome> {
  const { browser, csrf } = fixture.caller;
  return outcomeOf(await browser.request('POST', path, { form: { _csrf: csrf, ...fields } }));
}

async function page(fixture: Fixture, path: string): Promise<Outcome> {
  return outcomeOf(await fixture.caller.browser.request('GET', path, { html: true }));
}

// --- what the operations act on -------------------------------------------------------------

const unique = () => randomUUID().slice(0, 8);
const hookUrl = () => `http://127.0.0.1:9/hook-${unique()}`;

const endpoint = async ({ webhooks }: Fixture): Promise<Target> => {
  const made = await registerEndpoint(webhooks, OPERATOR, { url: hookUrl(), events: ['*'], owner: OWNER });
  return { id: made.id, url: made.url };
};

const disabledEndpoint = async (fixture: Fixture): Promise<Target> => {
  const target = await endpoint(fixture);
  await disableEndpoint(fixture.webhooks, OPERATOR, target.id, { reason: 'made disabled for the test' });
  return target;
};

/** A delivery of a fresh endpoint, set to `status` (no worker runs here: it stays so). */
const deliveryIn =
  (status: 'dead' | 'done') =>
  async (fixture: Fixture): Promise<Target> => {
    const target = await endpoint(fixture);
    const delivery = await sendToEndpoint(fixture.webhooks, OPERATOR, target.id, 'order.created', { n: 1 });
    await fixture.webhooks
      .sql`update app_webhook_deliveries set status = ${status}, completed_at = now() where id = ${delivery.id}`;
    return { ...target, delivery: delivery.id };
  };

const eventType = async ({ webhooks }: Fixture): Promise<Target> => {
  const made = await createEventType(webhooks, OPERATOR, { name: `matrix.t${unique()}` });
  return { name: made.name };
};

/** A token of the caller's own user (so only its role can stop it from revoking it). */
const ownToken = async ({ webhooks, caller }: Fixture): Promise<Target> => {
  const made = await createToken(
    webhooks,
    { name: `own ${unique()}`, role: 'viewer', owner: OWNER },
    { userId: caller.userId },
  );
  return { id: made.id };
};

const user =
  (disabled: boolean) =>
  async ({ accounts }: Fixture): Promise<Target> => {
    const made = await createUser(accounts, OPERATOR, {
      email: `someone-${unique()}@example.com`,
      role: 'viewer',
      owner: OWNER,
      password: PASSWORD,
    });
    if (disabled) await setUserDisabled(accounts, OPERATOR, made.id, true);
    return { id: made.id, email: made.email };
  };

const nothing = async (): Promise<Target> => ({ name: unique() });

// --- what is read back ------------------------------------------------------------------------

const endpointRow = ({ webhooks }: Fixture, { id }: Target) =>
  webhooks.sql`select url, events, description, disabled_at is null as enabled from app_webhooks where id = ${id}`.then(
    (rows) => rows.map((row) => ({ ...row })),
  );
const secretIds = ({ webhooks }: Fixture, { id }: Target) =>
  webhooks.sql`select s.value ->> 'sealed' as id from app_webhooks, jsonb_array_elements(secrets) as s (value) where id = ${id}`.then(
    (rows) => rows.map((row) => row.id),
  );
const deliveriesOf = ({ webhooks }: Fixture, { id }: Target) =>
  webhooks.sql`select id, status from app_webhook_deliveries where endpoint_id = ${id} order by id`.then((rows) =>
    rows.map((row) => ({ ...row })),
  );
const deliveryStatus = ({ webhooks }: Fixture, { delivery }: Target) =>
  webhooks.sql`select status, updated_at from app_webhook_deliveries where id = ${delivery}`.then((rows) =>
    rows.map((row) => ({ ...row })),
  );
const endpointsAt = ({ webhooks }: Fixture, { url }: Target) =>
  webhooks.sql`select count(*)::int as n from app_webhooks where url = ${url}`.then(([row]) => row.n);
const eventsOfType = ({ webhooks }: Fixture, { type }: Target) =>
  webhooks.sql`select count(*)::int as n from app_events where type = ${type}`.then(([row]) => row.n);
const eventTypeRow = ({ webhooks }: Fixture, { name }: Target) =>
  webhooks.sql`select name, description from app_event_types where name = ${name}`.then((rows) =>
    rows.map((row) => ({ ...row })),
  );
const tokensNamed = ({ webhooks }: Fixture, { name }: Target) =>
  webhooks.sql`select count(*)::int as n from app_api_tokens where name = ${name}`.then(([row]) => row.n);
const tokenRevoked = ({ webhooks }: Fixture, { id }: Target) =>
  webhooks.sql`select revoked_at is not null as revoked from app_api_tokens where id = ${id}`.then(
    ([row]) => row.revoked,
  );
const userRow = ({ accounts }: Fixture, { id, email }: Target) =>
  accounts.sql`select email, disabled_at is null as enabled from app_users where id = ${id ?? ''} or email = ${email ?? ''}`.then(
    (rows) => rows.map((row) => ({ ...row })),
  );
const passwordLinks = ({ accounts }: Fixture, { id }: Target) =>
  accounts.sql`select count(*)::int as n from app_password_links where user_id = ${id}`.then(([row]) => row.n);
const portalLinks = ({ accounts }: Fixture, { owner }: Target) =>
  accounts.sql`select count(*)::int as n from app_portal_links where owner = ${owner}`.then(([row]) => row.n);

const portalSessions = ({ accounts }: Fixture, { owner }: Target) =>
  accounts.sql`select count(*)::int as n from app_sessions where portal_owner = ${owner}`.then(([row]) => row.n);

// --- the cases ----------------------------------------------------------------------------------

const ENDPOINT_FIELDS = `id description enabled`;

export const CASES: Record<Operation, Case> = {
  'webhooks.read': {
    prepare: endpoint,
    faces: {
      rest: { run: (f) => rest(f, 'GET', '/api/v1/webhooks') },
      graphql: { run: (f) => graphql(f, '{ webhookEndpoints { total } }') },
      console: { run: (f, t) => page(f, `/endpoints/${t.id}`) },
    },
  },
  'filters.test': {
    prepare: endpoint,
    faces: {
      rest: {
        route: 'POST /api/v1/webhooks/filter-test',
        run: (f) =>
          rest(f, 'POST', '/api/v1/webhooks/filter-test', {
            filter: { 'data.n': { $gt: 1 } },
            event: { type: 'order.created', data: { n: 2 } },
          }),
      },
      graphql: {
        run: (f) =>
          graphql(
            f,
            'query ($filter: JSON, $event: JSON) { testWebhookFilter(filter: $filter, event: $event) { matches } }',
            {
              filter: { 'data.n': 1 },
              event: { type: 'order.created', data: { n: 1 } },
            },
          ),
      },
      console: {
        form: 'POST /endpoints/:id/filter-test',
        run: (f, t) =>
          form(f, `/endpoints/${t.id}/filter-test`, {
            filter: '{"data.n": 1}',
            sample: '{"type": "order.created", "data": {"n": 1}}',
          }),
      },
    },
  },
  'endpoints.register': {
    prepare: async () => ({ url: hookUrl() }),
    readBack: endpointsAt,
    faces: {
      rest: {
        route: 'POST /api/v1/webhooks',
        run: (f, t) => rest(f, 'POST', '/api/v1/webhooks', { url: t.url, events: ['*'], owner: OWNER }),
      },
      graphql: {
        field: 'registerWebhookEndpoint',
        run: (f, t) =>
          graphql(
            f,
            'mutation ($input: RegisterWebhookEndpointInput!) { registerWebhookEndpoint(input: $input) { secret } }',
            { input: { url: t.url, events: ['*'], owner: OWNER } },
          ),
      },
      console: {
        form: 'POST /endpoints',
        run: (f, t) => form(f, '/endpoints', { url: t.url, events: '*', owner: OWNER }),
      },
    },
  },
  'endpoints.update': {
    prepare: endpoint,
    readBack: endpointRow,
    faces: {
      rest: {
        route: 'PATCH /api/v1/webhooks/:externalId',
        run: (f, t) => rest(f, 'PATCH', `/api/v1/webhooks/${t.id}`, { description: 'changed' }),
      },
      graphql: {
        field: 'updateWebhookEndpoint',
        run: (f, t) =>
          graphql(
            f,
            `mutation ($id: ID!) { updateWebhookEndpoint(id: $id, input: { description: "changed" }) { ${ENDPOINT_FIELDS} } }`,
            { id: t.id },
          ),
      },
      console: {
        form: 'POST /endpoints/:id',
        run: (f, t) => form(f, `/endpoints/${t.id}`, { url: t.url, events: '*', description: 'changed' }),
      },
    },
  },
  'endpoints.disable': {
    prepare: endpoint,
    readBack: endpointRow,
    faces: {
      rest: { run: (f, t) => rest(f, 'PATCH', `/api/v1/webhooks/${t.id}`, { enabled: false }) },
      graphql: {
        field: 'updateWebhookEndpoint',
        run: (f, t) =>
          graphql(
            f,
            `mutation ($id: ID!) { updateWebhookEndpoint(id: $id, input: { enabled: false }) { ${ENDPOINT_FIELDS} } }`,
            { id: t.id },
          ),
      },
      console: {
        form: 'POST /endpoints/:id/disable',
        run: (f, t) => form(f, `/endpoints/${t.id}/disable`, { reason: 'taken over' }),
      },
    },
  },
  'endpoints.enable': {
    prepare: disabledEndpoint,
    readBack: endpointRow,
    faces: {
      rest: { run: (f, t) => rest(f, 'PATCH', `/api/v1/webhooks/${t.id}`, { enabled: true }) },
      graphql: {
        field: 'updateWebhookEndpoint',
        run: (f, t) =>
          graphql(
            f,
            `mutation ($id: ID!) { updateWebhookEndpoint(id: $id, input: { enabled: true }) { ${ENDPOINT_FIELDS} } }`,
            { id: t.id },
          ),
      },
      console: { form: 'POST /endpoints/:id/enable', run: (f, t) => form(f, `/endpoints/${t.id}/enable`) },
    },
  },
  'endpoints.rotate': {
    prepare: endpoint,
    readBack: secretIds,
    faces: {
      rest: {
        route: 'POST /api/v1/webhooks/:externalId/rotate',
        run: (f, t) => rest(f, 'POST', `/api/v1/webhooks/${t.id}/rotate`, {}),
      },
      graphql: {
        field: 'rotateWebhookSecret',
        run: (f, t) => graphql(f, 'mutation ($id: ID!) { rotateWebhookSecret(id: $id) { secret } }', { id: t.id }),
      },
      console: {
        form: 'POST /endpoints/:id/rotate',
        run: (f, t) => form(f, `/endpoints/${t.id}/rotate`, { grace: '0' }),
      },
    },
  },
  'endpoints.reveal': {
    prepare: endpoint,
    faces: {
      rest: { run: (f, t) => rest(f, 'GET', `/api/v1/webhooks/${t.id}?reveal=headers`) },
      graphql: {
        run: (f, t) =>
          graphql(f, 'query ($id: ID!) { webhookEndpoint(id: $id) { headers(reveal: true) } }', { id: t.id }),
      },
      console: { form: 'POST /endpoints/:id/secret', run: (f, t) => form(f, `/endpoints/${t.id}/secret`) },
    },
  },
  'endpoints.send': {
    prepare: endpoint,
    readBack: deliveriesOf,
    faces: {
      rest: {
        route: 'POST /api/v1/webhooks/:externalId/test',
        run: (f, t) => rest(f, 'POST', `/api/v1/webhooks/${t.id}/test`, {}),
      },
      graphql: {
        field: 'sendTestWebhookEvent',
        run: (f, t) => graphql(f, 'mutation ($id: ID!) { sendTestWebhookEvent(id: $id) { id } }', { id: t.id }),
      },
      console: { form: 'POST /endpoints/:id/test', run: (f, t) => form(f, `/endpoints/${t.id}/test`, { data: '{}' }) },
    },
  },
  'endpoints.remove': {
    prepare: endpoint,
    readBack: endpointRow,
    faces: {
      rest: {
        route: 'DELETE /api/v1/webhooks/:externalId',
        run: (f, t) => rest(f, 'DELETE', `/api/v1/webhooks/${t.id}`),
      },
      graphql: {
        field: 'removeWebhookEndpoint',
        run: (f, t) => graphql(f, 'mutation ($id: ID!) { removeWebhookEndpoint(id: $id) }', { id: t.id }),
      },
      console: { form: 'POST /endpoints/:id/remove', run: (f, t) => form(f, `/endpoints/${t.id}/remove`) },
    },
  },
  'endpoints.recover': {
    prepare: deliveryIn('dead'),
    readBack: deliveriesOf,
    faces: {
      rest: {
        route: 'POST /api/v1/webhooks/:externalId/recover',
        run: (f, t) => rest(f, 'POST', `/api/v1/webhooks/${t.id}/recover`, { since: '1970-01-01T00:00:00Z' }),
      },
      graphql: {
        field: 'recoverWebhookDeliveries',
        run: (f, t) =>
          graphql(
            f,
            'mutation ($id: ID!) { recoverWebhookDeliveries(id: $id, since: "1970-01-01T00:00:00Z") { recovered } }',
            { id: t.id },
          ),
      },
      console: {
        form: 'POST /dead-letters/replay',
        run: (f, t) => form(f, '/dead-letters/replay', { endpoint: t.id }),
      },
    },
  },
  'deliveries.retry': {
    prepare: deliveryIn('dead'),
    readBack: deliveryStatus,
    faces: {
      rest: {
        route: 'POST /api/v1/deliveries/:externalId/retry',
        run: (f, t) => rest(f, 'POST', `/api/v1/deliveries/${t.delivery}/retry`, {}),
      },
      graphql: {
        field: 'retryWebhookDelivery',
        run: (f, t) => graphql(f, 'mutation ($id: ID!) { retryWebhookDelivery(id: $id) { id } }', { id: t.delivery }),
      },
      console: { form: 'POST /deliveries/:id/retry', run: (f, t) => form(f, `/deliveries/${t.delivery}/retry`) },
    },
  },
  'deliveries.resend': {
    prepare: deliveryIn('done'),
    readBack: deliveryStatus,
    faces: {
      rest: {
        route: 'POST /api/v1/deliveries/:externalId/resend',
        run: (f, t) => rest(f, 'POST', `/api/v1/deliveries/${t.delivery}/resend`, {}),
      },
      graphql: {
        field: 'resendWebhookDelivery',
        run: (f, t) => graphql(f, 'mutation ($id: ID!) { resendWebhookDelivery(id: $id) { id } }', { id: t.delivery }),
      },
      console: { form: 'POST /deliveries/:id/resend', run: (f, t) => form(f, `/deliveries/${t.delivery}/resend`) },
    },
  },
  'events.emit': {
    // matrix.test.ts registers an endpoint of acme for every event before any test
    prepare: async () => ({ type: `matrix.e${unique()}` }),
    readBack: eventsOfType,
    faces: {
      rest: {
        route: 'POST /api/v1/events',
        run: (f, t) => rest(f, 'POST', '/api/v1/events', { type: t.type, data: {}, owner: OWNER }),
      },
      graphql: {
        field: 'emitWebhookEvent',
        run: (f, t) =>
          graphql(f, 'mutation ($input: EmitWebhookEventInput!) { emitWebhookEvent(input: $input) { duplicate } }', {
            input: { type: t.type, data: {}, owner: OWNER },
          }),
      },
      console: { form: 'POST /events', run: (f, t) => form(f, '/events', { type: t.type, data: '{}', owner: OWNER }) },
    },
  },
  'eventTypes.create': {
    prepare: async () => ({ name: `matrix.c${unique()}` }),
    readBack: eventTypeRow,
    faces: {
      rest: {
        route: 'POST /api/v1/event-types',
        run: (f, t) => rest(f, 'POST', '/api/v1/event-types', { name: t.name }),
      },
      graphql: {
        field: 'createEventType',
        run: (f, t) =>
          graphql(f, 'mutation ($input: EventTypeInput!) { createEventType(input: $input) { name } }', {
            input: { name: t.name },
          }),
      },
      console: { form: 'POST /event-types', run: (f, t) => form(f, '/event-types', { name: t.name }) },
    },
  },
  'eventTypes.update': {
    prepare: eventType,
    readBack: eventTypeRow,
    faces: {
      rest: {
        route: 'PATCH /api/v1/event-types/:externalId',
        run: (f, t) => rest(f, 'PATCH', `/api/v1/event-types/${t.name}`, { description: 'changed' }),
      },
      graphql: {
        field: 'updateEventType',
        run: (f, t) =>
          graphql(
            f,
            'mutation ($name: String!) { updateEventType(name: $name, input: { description: "changed" }) { name } }',
            { name: t.name },
          ),
      },
      // the type's form and its deprecation button post to the same address
      console: {
        form: 'POST /event-types/:name',
        run: (f, t) => form(f, `/event-types/${t.name}`, { description: 'changed', schema: '', examples: '' }),
      },
    },
  },
  'tokens.read': {
    prepare: nothing,
    faces: {
      rest: { run: (f) => rest(f, 'GET', '/api/v1/tokens') },
      console: { run: (f) => page(f, '/tokens') },
    },
  },
  'tokens.mint': {
    prepare: nothing,
    readBack: tokensNamed,
    faces: {
      rest: { route: 'POST /api/v1/tokens', run: (f, t) => rest(f, 'POST', '/api/v1/tokens', { name: t.name }) },
      console: { form: 'POST /tokens', run: (f, t) => form(f, '/tokens', { name: t.name }) },
    },
  },
  'tokens.revoke': {
    prepare: ownToken,
    readBack: tokenRevoked,
    faces: {
      rest: { route: 'DELETE /api/v1/tokens/:externalId', run: (f, t) => rest(f, 'DELETE', `/api/v1/tokens/${t.id}`) },
      console: { form: 'POST /tokens/:id/revoke', run: (f, t) => form(f, `/tokens/${t.id}/revoke`) },
    },
  },
  'users.read': {
    prepare: nothing,
    faces: { console: { run: (f) => page(f, '/users') } },
  },
  'users.invite': {
    prepare: async () => ({ email: `invited-${unique()}@example.com` }),
    readBack: userRow,
    faces: {
      console: {
        form: 'POST /users',
        run: (f, t) => form(f, '/users', { email: t.email, role: 'viewer', owner: OWNER }),
      },
    },
  },
  'users.disable': {
    prepare: user(false),
    readBack: userRow,
    faces: { console: { form: 'POST /users/:id/disable', run: (f, t) => form(f, `/users/${t.id}/disable`) } },
  },
  'users.enable': {
    prepare: user(true),
    readBack: userRow,
    faces: { console: { form: 'POST /users/:id/enable', run: (f, t) => form(f, `/users/${t.id}/enable`) } },
  },
  'users.passwordLink': {
    prepare: user(false),
    readBack: passwordLinks,
    faces: { console: { form: 'POST /users/:id/reset-link', run: (f, t) => form(f, `/users/${t.id}/reset-link`) } },
  },
  'tenants.read': {
    prepare: nothing,
    faces: { console: { run: (f) => page(f, '/tenants') } },
  },
  'portalLinks.create': {
    prepare: async () => ({ owner: `tenant-${unique()}` }),
    readBack: portalLinks,
    faces: {
      console: {
        form: 'POST /tenants/portal-link',
        run: (f, t) => form(f, '/tenants/portal-link', { owner: t.owner, role: 'viewer' }),
      },
    },
  },
  'portalSessions.end': {
    // a portal session of a tenant of its own: ending acme's would end the portal callers' own
    prepare: async ({ accounts }) => {
      const owner = `tenant-${unique()}`;
      await usePortalLink(accounts, (await createPortalLink(accounts, OPERATOR, { owner })).token);
      return { owner };
    },
    readBack: portalSessions,
    faces: {
      console: {
        form: 'POST /tenants/portal-end',
        run: (f, t) => form(f, '/tenants/portal-end', { owner: t.owner, links: 'true' }),
      },
    },
  },
};

/**
 * The operations that name an event type, asked with one of the service's own (`app.`): a
 * tenant's caller allowed the operation is refused with 422 `APP_WEBHOOK_EVENT_TYPE_RESERVED`.
 */
export const RESERVED_TYPE_CASES: Record<'events.emit' | 'endpoints.send', Case> = {
  'events.emit': {
    prepare: async () => ({ type: `app.matrix${unique()}` }),
    readBack: eventsOfType,
    faces: {
      rest: { run: (f, t) => rest(f, 'POST', '/api/v1/events', { type: t.type, data: {}, owner: OWNER }) },
      graphql: {
        run: (f, t) =>
          graphql(f, 'mutation ($input: EmitWebhookEventInput!) { emitWebhookEvent(input: $input) { duplicate } }', {
            input: { type: t.type, data: {}, owner: OWNER },
          }),
      },
      console: { run: (f, t) => form(f, '/events', { type: t.type, data: '{}', owner: OWNER }) },
    },
  },
  'endpoints.send': {
    prepare: async (fixture) => ({ ...(await endpoint(fixture)), type: `app.matrix${unique()}` }),
    readBack: deliveriesOf,
    faces: {
      rest: { run: (f, t) => rest(f, 'POST', `/api/v1/webhooks/${t.id}/test`, { type: t.type }) },
      graphql: {
        run: (f, t) =>
          graphql(f, 'mutation ($id: ID!, $type: String) { sendTestWebhookEvent(id: $id, type: $type) { id } }', {
            id: t.id,
            type: t.type,
          }),
      },
      console: { run: (f, t) => form(f, `/endpoints/${t.id}/test`, { type: t.type, data: '{}' }) },
    },
  },
};

// --- the callers --------------------------------------------------------------------------------

/** Signs `who` in to a browser of the web process at `base`. */
export async function signIn(base: string, accounts: AccountDeps, who: Who): Promise<Caller> {
  const browser = new Browser(base);
  if (who === 'portal member' || who === 'portal viewer') {
    const { token } = await createPortalLink(accounts, OPERATOR, {
      owner: OWNER,
      role: who === 'portal member' ? 'member' : 'viewer',
    });
    const landing = await browser.request('GET', `/portal?token=${encodeURIComponent(token)}`);
    const started = await browser.request('POST', '/portal', { json: { _csrf: landing.body.csrfToken, token } });
    if (started.status !== 200) throw new Error(`portal sign-in failed: ${started.status} ${started.text}`);
    return { who, browser, csrf: started.body.csrfToken as string, userId: null };
  }
  const made = await createUser(accounts, OPERATOR, {
    email: `${who}-${unique()}@example.com`,
    role: who,
    owner: who === 'admin' ? null : OWNER,
    password: PASSWORD,
  });
  return { who, browser, csrf: await browser.signIn(made.email), userId: made.id };
}
