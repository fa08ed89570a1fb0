/**
 * Model policies: per-record links, 403 for what the caller may see and 404 for
 * what it may not, listings limited in SQL (`policyScope`) or record by record, GraphQL alike, and a
 * model without a policy unchanged. A HAL client (ketting) follows the links as a user would.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Client } from 'ketting';
import type { Middleware } from 'koa';
import type { GraphqlContext } from '../../../../api/graphql/context.ts';
import {
  defineModel,
  STRING,
  BOOLEAN,
  type ModelDeclaration,
  type PolicyPrincipal,
} from '../../../../api/model-framework/data/types.ts';
import { startApp, testDatabase, type TestApp } from '../../fixtures/app.ts';
import { MODELS } from '../../fixtures/models.ts';

const isAdmin = (principal: PolicyPrincipal | undefined) => principal?.roles.includes('admin') === true;
const sameOwner = (principal: PolicyPrincipal | undefined, record?: Record<string, unknown>) =>
  !!principal && record?.owner === principal.owner;
type Resolver = (parent: unknown, args: Record<string, unknown>, context?: unknown) => unknown;
const ctx = (context: unknown) => context as GraphqlContext;

/** Notes: everyone signed in sees its owner's notes; updates only while unlocked; only admins destroy. */
function notes(options: { scoped: boolean }): ModelDeclaration {
  return defineModel({
    name: 'Note',
    table: 'fixture_notes',
    schema: {
      title: { type: STRING, required: true },
      owner: { type: STRING },
      locked: { type: BOOLEAN, default: false },
    },
    policy: (principal, action, record) => {
      if (!principal) return false;
      if (action === 'index' || action === 'new') return true;
      if (action === 'create') return isAdmin(principal) || record?.owner === principal.owner;
      if (!isAdmin(principal) && !sameOwner(principal, record)) return false;
      if (action === 'update' || action === 'edit') return record?.locked !== true;
      if (action === 'destroy') return isAdmin(principal);
      return true;
    },
    ...(options.scoped
      ? {
          policyScope: (principal: PolicyPrincipal | undefined) =>
            isAdmin(principal) ? undefined : { owner: principal?.owner ?? null },
        }
      : {}),
    graphql: {
      types: /* GraphQL */ `
        type Note { externalId: ID! title: String! owner: String }
        type Query { notes: [Note!]! note(externalId: ID!): Note }
        type Mutation { renameNote(externalId: ID!, title: String!): Note! }
      `,
      resolvers: {
        Query: {
          notes: (async (_parent, _args, context) =>
            ctx(context).visible(
              'Note',
              (await ctx(context).models.get('Note')!.paginate({ page: 1, perPage: 100 })).records,
            )) as Resolver,
          note: (async (_parent, args, context) => {
            const record = await ctx(context).load('Note', String(args.externalId));
            if (!record) return null;
            await ctx(context).authorize('Note', 'show', record);
            return record;
          }) as Resolver,
        },
        Mutation: {
          renameNote: (async (_parent, args, context) => {
            const model = ctx(context).models.get('Note')!;
            const record = await model.find(String(args.externalId));
            if (!record) throw new Error('no such note');
            await ctx(context).authorize('Note', 'update', record);
            return model.update(String(args.externalId), { title: args.title });
          }) as Resolver,
        },
      },
    },
  });
}

/** `X-Owner` adds the tenant to the fixture's stub principal. */
const ownerHeader: Middleware = async (ctx, next) => {
  const principal = ctx.state.principal;
  if (principal) ctx.state.principal = { ...principal, owner: ctx.get('X-Owner') || null };
  await next();
};

const ROUTES = { 'crud notes': { scope: 'api/v1' }, 'crud authors': { scope: 'api/v1' } };
let scoped: TestApp;
let unscoped: TestApp;
const ids: Record<string, string> = {};

before(async () => {
  const db = await testDatabase();
  await db.sql`create table if not exists fixture_notes (id bigint generated always as identity primary key, external_id text not null unique, title text not null, owner text, locked boolean not null default false)`;
  scoped = await startApp({
    models: [...MODELS, notes({ scoped: true })],
    routes: ROUTES,
    setup: (web) => web.plug('user', ownerHeader),
  });
  unscoped = await startApp({
    models: [...MODELS, notes({ scoped: false })],
    routes: ROUTES,
    setup: (web) => web.plug('user', ownerHeader),
  });
  const Note = scoped.web.api!.models.get('Note')!;
  ids.acmeOpen = (await Note.create({ title: 'open', owner: 'acme' })).externalId;
  ids.acmeLocked = (await Note.create({ title: 'locked', owner: 'acme', locked: true })).externalId;
  ids.globex = (await Note.create({ title: 'theirs', owner: 'globex' })).externalId;
});

const as = (who: 'member' | 'admin', owner = 'acme') => ({
  'X-Test-Principal': `${who}-1;${who}`,
  'X-Owner': owner,
  accept: 'application/json',
  'content-type': 'application/json',
});
async function call(app: TestApp, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${app.api}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

describe('model policies', () => {
  it('links are filtered per record: an unlocked note offers update, a locked one does not; destroy only for admins', async () => {
    const open = await call(scoped, 'GET', `/notes/${ids.acmeOpen}`, as('member'));
    const locked = await call(scoped, 'GET', `/notes/${ids.acmeLocked}`, as('member'));
    assert.equal(open.status, 200);
    assert.ok(open.body._links.update, 'update offered on the unlocked note');
    assert.equal(locked.body._links.update, undefined, 'no update on the locked note');
    assert.equal(open.body._links.destroy, undefined, 'members never get destroy');
    const admin = await call(scoped, 'GET', `/notes/${ids.acmeOpen}`, as('admin'));
    assert.ok(admin.body._links.destroy);
    const listed = await call(scoped, 'GET', '/notes', as('member'));
    const byId = new Map(
      listed.body._embedded.notes.map((note: { externalId: string; _links: Record<string, unknown> }) => [
        note.externalId,
        note._links,
      ]),
    );
    assert.ok((byId.get(ids.acmeOpen) as Record<string, unknown>).update);
    assert.equal(
      (byId.get(ids.acmeLocked) as Record<string, unknown>).update,
      undefined,
      'the same rule inside a collection',
    );
  });

  it('a refusal is 403 on a record the caller may see and 404 on one it may not', async () => {
    const lockedUpdate = await call(scoped, 'PATCH', `/notes/${ids.acmeLocked}`, as('member'), { title: 'x' });
    assert.equal(lockedUpdate.status, 403);
    assert.equal(lockedUpdate.body.code, 'APP_FORBIDDEN');
    const memberDestroy = await call(scoped, 'DELETE', `/notes/${ids.acmeOpen}`, as('member'));
    assert.equal(memberDestroy.status, 403);
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { title: 'mine now' }],
      ['DELETE', undefined],
    ] as const) {
      const theirs = await call(scoped, method, `/notes/${ids.globex}`, as('member'), body);
      assert.equal(theirs.status, 404, method);
      assert.equal(theirs.body.code, 'APP_RECORD_NOT_FOUND');
    }
    const created = await call(scoped, 'POST', '/notes', as('member'), { title: 'new', owner: 'globex' });
    assert.equal(created.status, 403, 'create for another owner');
    assert.equal(
      (await call(scoped, 'GET', `/notes/${ids.globex}`, as('member', 'globex'))).status,
      200,
      'its own owner sees it',
    );
  });

  it('listings: policyScope limits the query; without it, the policy keeps what the caller may see; totals exact either way', async () => {
    const exact = await call(scoped, 'GET', '/notes', as('member'));
    assert.equal(exact.body.total, 2);
    assert.deepEqual(
      exact.body._embedded.notes.map((note: { owner: string }) => note.owner),
      ['acme', 'acme'],
    );
    const filtered = await call(unscoped, 'GET', '/notes', as('member'));
    assert.deepEqual(
      filtered.body._embedded.notes.map((note: { owner: string }) => note.owner),
      ['acme', 'acme'],
    );
    assert.equal(filtered.body.count, 2);
    assert.equal(filtered.body.total, 2, "the total counts no other tenant's note");
    assert.equal((await call(scoped, 'GET', '/notes', as('admin'))).body.total, 3, 'admins see every note');
  });

  it('GraphQL applies the same policy: hidden notes are absent or null, refused mutations carry the same codes', async () => {
    const gql = async (query: string, who: 'member' | 'admin' = 'member') => {
      const response = await fetch(`${scoped.base}/_app/gql`, {
        method: 'POST',
        headers: as(who),
        body: JSON.stringify({ query }),
      });
      return (await response.json()) as {
        data?: Record<string, unknown>;
        errors?: { extensions?: { code?: string } }[];
      };
    };
    const listed = await gql('{ notes { owner } }');
    assert.deepEqual(
      (listed.data!.notes as { owner: string }[]).map((note) => note.owner),
      ['acme', 'acme'],
    );
    const hidden = await gql(`{ note(externalId: "${ids.globex}") { title } }`);
    assert.equal(hidden.data?.note, null);
    const missing = await gql('{ note(externalId: "no_such_note_0000000000") { title } }');
    assert.deepEqual(hidden, missing, 'context.load finds a hidden note as it finds a missing one: null');
    const refused = await gql(`mutation { renameNote(externalId: "${ids.acmeLocked}", title: "x") { title } }`);
    assert.equal(refused.errors?.[0]?.extensions?.code, 'APP_FORBIDDEN');
    const renamed = await gql(`mutation { renameNote(externalId: "${ids.acmeOpen}", title: "renamed") { title } }`);
    assert.equal((renamed.data!.renameNote as { title: string }).title, 'renamed');
  });

  it('a HAL client follows only the links it is given: ketting sees update on the open note and none on the locked one', async () => {
    const client = new Client(scoped.api);
    client.use(async (request, next) => {
      for (const [name, value] of Object.entries(as('member'))) request.headers.set(name, value);
      return next(request);
    });
    const open = await client.go(`/api/v1/notes/${ids.acmeOpen}`).get();
    const locked = await client.go(`/api/v1/notes/${ids.acmeLocked}`).get();
    assert.equal(open.links.has('update'), true);
    assert.equal(locked.links.has('update'), false);
  });

  it('a model without a policy is unchanged: authors list, show and change as before', async () => {
    const made = await call(scoped, 'POST', '/authors', as('member'), { name: 'Ann' });
    assert.equal(made.status, 201);
    assert.ok(made.body._links.update && made.body._links.destroy);
  });
});
