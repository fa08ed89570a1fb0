/**
 * The models a request reaches (`ctx.model`, `ctx.models`, a resolver's `context.models`) apply
 * the tenant rules on every write for the request's caller: a hand-written controller and a
 * resolver that write what the client sent with no check of their own cannot move a record to
 * another tenant (403, nothing written, no event), link another tenant's record (422 as a record
 * that does not exist), nor touch a record they may not see; an admin still can, and
 * `asSystem` is the explicit way around.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Middleware } from 'koa';
import type { GraphqlContext } from '../../../../api/graphql/context.ts';
import { asSystem } from '../../../../api/model-framework/data/guarded-models.ts';
import {
  BOOLEAN,
  defineModel,
  ObjectId,
  STRING,
  type PolicyPrincipal,
} from '../../../../api/model-framework/data/types.ts';
import { defineController } from '../../../../api/model-framework/routing/controller.ts';
import { startApp, testDatabase, type TestApp } from '../../fixtures/app.ts';
import { endpoint, harness } from '../../../worker/helpers.ts';

const isAdmin = (principal: PolicyPrincipal | undefined) => principal?.roles.includes('admin') === true;
const ownScope = (principal: PolicyPrincipal | undefined) =>
  isAdmin(principal) ? undefined : { owner: principal?.owner ?? null };

/** Folders: each tenant sees its own; admins every one. */
const Folder = defineModel({
  name: 'Folder',
  table: 'fixture_folders',
  schema: { name: { type: STRING, required: true }, owner: { type: STRING } },
  policy: (principal, action, record) =>
    !!principal && (action === 'index' || action === 'new' || isAdmin(principal) || record?.owner === principal.owner),
  policyScope: ownScope,
});

type Args = Record<string, string | undefined>;
const notes = (context: GraphqlContext) => context.models.get('Note')!;

/** Notes of docs/models.md: a tenant's own, updated while unlocked; changes emitted to the owner. Mutations check nothing. */
const Note = defineModel({
  name: 'Note',
  table: 'fixture_tenant_notes',
  schema: {
    title: { type: STRING, required: true },
    owner: { type: STRING },
    locked: { type: BOOLEAN, default: false },
    folder: { type: ObjectId, ref: 'Folder', column: 'folder_id' },
  },
  policy: (principal, action, record) => {
    if (!principal) return false;
    if (action === 'index' || action === 'new') return true;
    if (action === 'create') return isAdmin(principal) || record?.owner === principal.owner;
    if (!isAdmin(principal) && record?.owner !== principal.owner) return false;
    if (action === 'update' || action === 'edit') return record?.locked !== true;
    return true;
  },
  policyScope: ownScope,
  webhooks: { events: ['created', 'updated', 'deleted'] },
  graphql: {
    types: /* GraphQL */ `
      type Note { externalId: ID! title: String! owner: String }
      type Query { noteTitle(externalId: ID!): String }
      type Mutation {
        moveNote(externalId: ID!, owner: String!): Note
        createNote(title: String!, owner: String, folder: ID): Note!
      }
    `,
    resolvers: {
      Query: { noteTitle: async () => null },
      Mutation: {
        moveNote: (_parent, args: Args, context) =>
          notes(context).update(args.externalId as string, { owner: args.owner }),
        createNote: (_parent, args: Args, context) =>
          notes(context).create({ title: args.title, owner: args.owner, folder: args.folder }),
      },
    },
  },
});

/** A hand-written controller that writes what the client sent and checks nothing itself. */
const notesController = defineController({
  async create(ctx) {
    await ctx.resource(await ctx.model!.create(ctx.permit('title', 'owner', 'folder')), { status: 201 });
  },
  async update(ctx) {
    const record = await ctx.model!.update(ctx.params.externalId, ctx.permit('title', 'owner', 'folder', 'locked'));
    await ctx.resource(record ?? ctx.boom.notFound('no such note'));
  },
  async destroy(ctx) {
    if (!(await ctx.model!.destroy(ctx.params.externalId))) ctx.boom.notFound('no such note');
    ctx.status = 204;
  },
});

/** The opt-out: a hand-over the application makes on its own authority. */
const handOver = defineController({
  async create(ctx) {
    const { owner } = ctx.permit('owner') as { owner: string };
    const record = await asSystem(ctx.models.get('Note')!).update(ctx.params.externalId, { owner });
    await ctx.resource(record ?? ctx.boom.notFound('no such note'), { type: 'notes' });
  },
});

/** `X-Owner` adds the tenant to the fixture's stub principal. */
const ownerHeader: Middleware = async (ctx, next) => {
  const principal = ctx.state.principal;
  if (principal) ctx.state.principal = { ...principal, owner: ctx.get('X-Owner') || null };
  await next();
};

let app: TestApp;
const ids: Record<string, string> = {};
const as = (owner: string, who: 'member' | 'admin' = 'member') => ({
  'X-Test-Principal': `${who}-1;${who}`,
  'X-Owner': owner,
  accept: 'application/json',
  'content-type': 'application/json',
});
async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${app.api}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
async function gql(query: string, headers: Record<string, string>) {
  const response = await fetch(`${app.base}/_app/gql`, { method: 'POST', headers, body: JSON.stringify({ query }) });
  return (await response.json()) as {
    data?: Record<string, { owner?: string; externalId?: string } | null>;
    errors?: { extensions?: { code?: string } }[];
  };
}
const noteRow = async (externalId: string) =>
  (
    await app.db.sql<{ title: string; owner: string | null; folder_id: string | null }[]>`
    select title, owner, folder_id from fixture_tenant_notes where external_id = ${externalId}`
  )[0];
const noteCount = async () => (await app.db.sql`select 1 from fixture_tenant_notes`).length;
const noteEvents = async () =>
  await app.db.sql<{ type: string; owner: string | null }[]>`
    select type, owner from app_events where type like 'note.%' order by id`;
const Notes = () => app.web.api!.models.get('Note')!;

before(async () => {
  const db = await testDatabase();
  await db.sql`create table fixture_folders (id bigint generated always as identity primary key, external_id text not null unique, name text not null, owner text)`;
  await db.sql`create table fixture_tenant_notes (id bigint generated always as identity primary key, external_id text not null unique, title text not null, owner text, locked boolean not null default false, folder_id bigint references fixture_folders (id))`;
  app = await startApp({
    models: [Folder, Note],
    routes: {
      'crud notes': { scope: 'api/v1', roles: ['*'] },
      'POST /notes/:externalId/hand-over': { controller: 'hand-over.create', scope: 'api/v1', roles: ['*'] },
    },
    controllers: { notes: notesController, 'hand-over': handOver },
    setup: (web) => web.plug('user', ownerHeader),
  });
  // both tenants listen to notes, so a change told to the wrong one is written as its event
  const h = harness(db, { webhooks: { allowHttp: true, allowPrivate: true } });
  for (const owner of ['acme', 'globex'])
    await endpoint(h, `http://127.0.0.1:9/${owner}`, { owner, events: ['note.*'] });
  const models = app.web.api!.models;
  ids.acmeFolder = (await models.get('Folder')!.create({ name: 'acme', owner: 'acme' })).externalId;
  ids.globexFolder = (await models.get('Folder')!.create({ name: 'globex', owner: 'globex' })).externalId;
  ids.acmeNote = (await Notes().create({ title: 'mine', owner: 'acme' })).externalId;
  ids.acmeLocked = (await Notes().create({ title: 'locked', owner: 'acme', locked: true })).externalId;
  ids.globexNote = (await Notes().create({ title: 'theirs', owner: 'globex' })).externalId;
});

describe('a hand-written controller writing through ctx.model', () => {
  it('cannot move a record to another tenant: 403 APP_FORBIDDEN, nothing written, no event; an admin can', async () => {
    const before = (await noteEvents()).length;
    const moved = await call('PATCH', `/notes/${ids.acmeNote}`, as('acme'), { title: 'theirs now', owner: 'globex' });
    assert.equal(moved.status, 403, JSON.stringify(moved.body));
    assert.equal(moved.body.code, 'APP_FORBIDDEN');
    assert.deepEqual(await noteRow(ids.acmeNote), { title: 'mine', owner: 'acme', folder_id: null });
    assert.equal((await noteEvents()).length, before, 'no event to either owner');
    const renamed = await call('PATCH', `/notes/${ids.acmeNote}`, as('acme'), { title: 'still mine' });
    assert.equal(renamed.status, 200, 'a change that keeps the record in sight goes through');
    const handed = await call('PATCH', `/notes/${ids.acmeNote}`, as('-', 'admin'), { owner: 'globex' });
    assert.equal(handed.status, 200, 'an admin, who sees every owner, moves it');
    assert.deepEqual((await noteEvents()).slice(before), [
      { type: 'note.updated', owner: 'acme' },
      { type: 'note.updated', owner: 'globex' },
    ]);
    await Notes().update(ids.acmeNote, { title: 'mine', owner: 'acme' });
  });

  it("cannot reference another tenant's record: 422 APP_REFERENCE_INVALID on create and update, nothing written; an admin can", async () => {
    const count = await noteCount();
    const created = await call('POST', '/notes', as('acme'), { title: 'x', owner: 'acme', folder: ids.globexFolder });
    assert.equal(created.status, 422, JSON.stringify(created.body));
    assert.equal(created.body.code, 'APP_REFERENCE_INVALID');
    assert.deepEqual(created.body.data.errors, [
      { field: 'folder', message: 'no Folder has this externalId', value: ids.globexFolder },
    ]);
    const updated = await call('PATCH', `/notes/${ids.acmeNote}`, as('acme'), { folder: ids.globexFolder });
    assert.equal(updated.status, 422);
    assert.equal(updated.body.code, 'APP_REFERENCE_INVALID');
    assert.equal((await noteRow(ids.acmeNote)).folder_id, null, 'nothing linked');
    assert.equal(await noteCount(), count, 'no note created');
    const own = await call('POST', '/notes', as('acme'), { title: 'filed', owner: 'acme', folder: ids.acmeFolder });
    assert.equal(own.status, 201, 'its own folder is linked');
    const admin = await call('POST', '/notes', as('-', 'admin'), {
      title: 'y',
      owner: 'globex',
      folder: ids.globexFolder,
    });
    assert.equal(admin.status, 201, 'an admin links any folder');
  });

  it("applies the policy's create, update and destroy: another owner's create 403; a hidden record is absent; a locked one 403", async () => {
    const count = await noteCount();
    const foreign = await call('POST', '/notes', as('acme'), { title: 'x', owner: 'globex' });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.code, 'APP_FORBIDDEN');
    assert.equal(await noteCount(), count);
    for (const method of ['PATCH', 'DELETE']) {
      const hidden = await call(method, `/notes/${ids.globexNote}`, as('acme'), { title: 'mine now' });
      assert.equal(hidden.status, 404, `${method} on a record the caller may not see answers as a missing one`);
    }
    assert.deepEqual(await noteRow(ids.globexNote), { title: 'theirs', owner: 'globex', folder_id: null });
    const locked = await call('PATCH', `/notes/${ids.acmeLocked}`, as('acme'), { title: 'x' });
    assert.equal(locked.status, 403);
    assert.equal((await noteRow(ids.acmeLocked)).title, 'locked');
  });

  it('asSystem(model) is the explicit opt-out: the application hands a note over on its own authority', async () => {
    const handed = await call('POST', `/notes/${ids.acmeNote}/hand-over`, as('acme'), { owner: 'globex' });
    assert.equal(handed.status, 200, JSON.stringify(handed.body));
    assert.equal((await noteRow(ids.acmeNote)).owner, 'globex');
    await Notes().update(ids.acmeNote, { owner: 'acme' });
  });
});

describe('a GraphQL resolver writing through context.models', () => {
  it("cannot move a record to another tenant (APP_FORBIDDEN, nothing written, no event) nor link another tenant's record (APP_REFERENCE_INVALID); an admin can", async () => {
    const before = (await noteEvents()).length;
    const count = await noteCount();
    const moved = await gql(
      `mutation { moveNote(externalId: "${ids.acmeNote}", owner: "globex") { owner } }`,
      as('acme'),
    );
    assert.equal(moved.errors?.[0]?.extensions?.code, 'APP_FORBIDDEN', JSON.stringify(moved));
    assert.equal((await noteRow(ids.acmeNote)).owner, 'acme');
    assert.equal((await noteEvents()).length, before, 'no event to either owner');
    const linked = await gql(
      `mutation { createNote(title: "x", owner: "acme", folder: "${ids.globexFolder}") { externalId } }`,
      as('acme'),
    );
    assert.equal(linked.errors?.[0]?.extensions?.code, 'APP_REFERENCE_INVALID', JSON.stringify(linked));
    assert.equal(await noteCount(), count, 'no note created');
    const admin = await gql(
      `mutation { moveNote(externalId: "${ids.acmeNote}", owner: "globex") { owner } }`,
      as('-', 'admin'),
    );
    assert.equal(admin.data?.moveNote?.owner, 'globex', JSON.stringify(admin));
    const adminLinked = await gql(
      `mutation { createNote(title: "y", owner: "globex", folder: "${ids.globexFolder}") { externalId } }`,
      as('-', 'admin'),
    );
    assert.ok(adminLinked.data?.createNote?.externalId, JSON.stringify(adminLinked));
    await Notes().update(ids.acmeNote, { owner: 'acme' });
  });
});
