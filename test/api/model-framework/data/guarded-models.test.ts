/**
 * The models a request reaches (`ctx.model`, `ctx.models`, a resolver's `context.models`) apply
 * the tenant rules on every read and write for the request's caller: a hand-written controller
 * and a resolver that write what the client sent with no check of their own cannot move a record
 * to another tenant (403, nothing written, no event), link another tenant's record (422 as a
 * record that does not exist), nor touch a record they may not see; one that reads with no check
 * of its own finds another tenant's record as a missing one and lists and counts only the
 * caller's; an admin still can, and `asSystem` is the explicit way around.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { GraphqlContext } from '../../../../api/graphql/context.ts';
import { asSystem } from '../../../../api/model-framework/data/guarded-models.ts';
import { defineModel, STRING } from '../../../../api/model-framework/data/types.ts';
import { defineController } from '../../../../api/model-framework/routing/controller.ts';
import { startApp, testDatabase, type TestApp } from '../../fixtures/app.ts';
import {
  as,
  createTenantTables,
  Folder,
  isAdmin,
  NOTE,
  noteRow as storedNote,
  ownerHeader,
} from '../../fixtures/tenant-notes.ts';
import { endpoint, harness } from '../../../worker/helpers.ts';

/** Labels: a tenant's own, with a policy but no `policyScope`, so listings are filtered record by record. */
const Label = defineModel({
  name: 'Label',
  table: 'fixture_labels',
  schema: { name: { type: STRING, required: true }, owner: { type: STRING } },
  policy: (principal, action, record) =>
    !!principal && (action === 'index' || action === 'new' || isAdmin(principal) || record?.owner === principal.owner),
  graphql: {
    types: /* GraphQL */ `
      type LabelPage { total: Int! names: [String!]! }
      type Query { labels(page: Int!, perPage: Int!): LabelPage! }
    `,
    resolvers: {
      Query: {
        labels: async (_parent, args, context) => {
          const page = await context.models.get('Label')!.paginate({ page: args.page, perPage: args.perPage });
          return { total: page.total, names: page.records.map((record) => record.name) };
        },
      },
    },
  },
});

type Args = Record<string, string | undefined>;
const notes = (context: GraphqlContext) => context.models.get('Note')!;

/** Notes of docs/models.md: a tenant's own, updated while unlocked; changes emitted to the owner. Mutations check nothing. */
const Note = defineModel({
  ...NOTE,
  graphql: {
    types: /* GraphQL */ `
      type Folder { name: String! owner: String }
      type Note { externalId: ID! title: String! owner: String folder: Folder }
      type NotePage { total: Int! owners: [String] }
      type Query {
        note(externalId: ID!): Note
        notes(page: Int!, perPage: Int!, owner: String): NotePage!
        notesByKey(keys: [ID!]!): [Note!]!
      }
      type Mutation {
        moveNote(externalId: ID!, owner: String!): Note
        createNote(title: String!, owner: String, folder: ID): Note!
      }
    `,
    resolvers: {
      Note: { folder: (note: { folder: string | null }, _args: Args, context) => context.load('Folder', note.folder) },
      Query: {
        note: (_parent, args: Args, context) => notes(context).find(args.externalId as string),
        notes: async (_parent, args, context) => {
          const where: Record<string, string> = typeof args.owner === 'string' ? { owner: args.owner } : {};
          const page = await notes(context).paginate({ page: args.page, perPage: args.perPage }, where);
          return { total: page.total, owners: page.records.map((record) => record.owner) };
        },
        notesByKey: (_parent, args, context) => notes(context).findMany(args.keys),
      },
      Mutation: {
        moveNote: (_parent, args: Args, context) =>
          notes(context).update(args.externalId as string, { owner: args.owner }),
        createNote: (_parent, args: Args, context) =>
          notes(context).create({ title: args.title, owner: args.owner, folder: args.folder }),
      },
    },
  },
});

/** A hand-written controller that reads and writes what the client asked for and checks nothing itself. */
const notesController = defineController({
  async index(ctx) {
    const page = await ctx.model!.paginate(ctx.pagination());
    await ctx.collection(page.records, page);
  },
  async show(ctx) {
    await ctx.resource((await ctx.model!.find(ctx.params.externalId)) ?? ctx.boom.notFound('no such note'));
  },
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

/** The opt-out for reads: the application's own view of every note (a census no caller's rules limit). */
const census = defineController({
  async index(ctx) {
    const page = await asSystem(ctx.models.get('Note')!).paginate(ctx.pagination());
    await ctx.collection(page.records, { ...page, type: 'notes' });
  },
  async show(ctx) {
    const record = await asSystem(ctx.models.get('Note')!).find(ctx.params.externalId);
    await ctx.resource(record ?? ctx.boom.notFound('no such note'), { type: 'notes' });
  },
});

let app: TestApp;
const ids: Record<string, string> = {};
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
const noteRow = (externalId: string) => storedNote(app.db.sql, externalId);
const noteCount = async () => (await app.db.sql`select 1 from fixture_tenant_notes`).length;
const noteEvents = async () =>
  await app.db.sql<{ type: string; owner: string | null }[]>`
    select type, owner from app_events where type like 'note.%' order by id`;
const Notes = () => app.web.api!.models.get('Note')!;

before(async () => {
  const db = await testDatabase();
  await createTenantTables(db.sql);
  await db.sql`create table fixture_labels (id bigint generated always as identity primary key, external_id text not null unique, name text not null, owner text)`;
  app = await startApp({
    models: [Folder, Note, Label],
    routes: {
      'crud notes': { scope: 'api/v1', roles: ['*'] },
      'crud labels': { scope: 'api/v1', roles: ['*'] },
      'POST /notes/:externalId/hand-over': { controller: 'hand-over.create', scope: 'api/v1', roles: ['*'] },
      'GET /census': { controller: 'census.index', scope: 'api/v1', roles: ['*'] },
      'GET /census/:externalId': { controller: 'census.show', scope: 'api/v1', roles: ['*'] },
    },
    controllers: { notes: notesController, 'hand-over': handOver, census },
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

/** The answer without what differs per request (its request id). */
const problem = (body: Record<string, unknown>) => {
  const { requestId: _requestId, instance: _instance, ...rest } = body;
  return rest;
};
const ownerCount = async (table: string, owner?: string) =>
  Number(
    (
      await app.db.sql<{ n: string }[]>`
      select count(*) as n from ${app.db.sql(table)} where ${owner === undefined ? app.db.sql`true` : app.db.sql`owner = ${owner}`}`
    )[0].n,
  );
const MISSING = 'no_such_note_00000000000';

describe('a hand-written controller reading through ctx.model', () => {
  it("finds another tenant's record as a missing one: the same 404, word for word; an admin finds it", async () => {
    const hidden = await call('GET', `/notes/${ids.globexNote}`, as('acme'));
    const missing = await call('GET', `/notes/${MISSING}`, as('acme'));
    assert.equal(hidden.status, 404, JSON.stringify(hidden.body));
    assert.deepEqual(problem(hidden.body), problem(missing.body));
    assert.equal((await call('GET', `/notes/${ids.acmeNote}`, as('acme'))).status, 200, 'its own note is found');
    const admin = await call('GET', `/notes/${ids.globexNote}`, as('-', 'admin'));
    assert.equal(admin.status, 200);
    assert.equal(admin.body.owner, 'globex');
  });

  it("lists only the caller's records and its total counts only those; an admin lists and counts every one", async () => {
    const listed = await call('GET', '/notes?per_page=100', as('acme'));
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const owners = listed.body._embedded.notes.map((note: { owner: string }) => note.owner);
    assert.ok(owners.length > 0 && owners.every((owner: string) => owner === 'acme'), JSON.stringify(owners));
    assert.equal(listed.body.total, await ownerCount('fixture_tenant_notes', 'acme'));
    assert.equal(listed.body.total, owners.length);
    const admin = await call('GET', '/notes?per_page=100', as('-', 'admin'));
    assert.equal(admin.body.total, await ownerCount('fixture_tenant_notes'));
    assert.ok(admin.body._embedded.notes.some((note: { owner: string }) => note.owner === 'globex'));
  });

  it('without policyScope the listing is filtered record by record, across read batches, with an exact total', async () => {
    // 3 acme labels among 600 of globex: the first, one past the first read batch, and the last
    await app.db.sql`insert into fixture_labels (external_id, name, owner) values ('label_acme_1', 'a1', 'acme')`;
    await app.db.sql`insert into fixture_labels (external_id, name, owner)
      select 'label_globex_' || n, 'g' || n, 'globex' from generate_series(1, 550) as n`;
    await app.db.sql`insert into fixture_labels (external_id, name, owner) values ('label_acme_2', 'a2', 'acme')`;
    await app.db.sql`insert into fixture_labels (external_id, name, owner)
      select 'label_globex_' || n, 'g' || n, 'globex' from generate_series(551, 600) as n`;
    await app.db.sql`insert into fixture_labels (external_id, name, owner) values ('label_acme_3', 'a3', 'acme')`;
    const second = await call('GET', '/labels?page=2&per_page=2', as('acme'));
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.deepEqual(
      second.body._embedded.labels.map((label: { name: string }) => label.name),
      ['a3'],
    );
    assert.equal(second.body.total, 3, 'the total counts no globex label');
    const first = await call('GET', '/labels?per_page=2', as('acme'));
    assert.deepEqual(
      first.body._embedded.labels.map((label: { name: string }) => label.name),
      ['a1', 'a2'],
    );
    assert.equal((await call('GET', '/labels?per_page=1', as('-', 'admin'))).body.total, 603);
    const hidden = await call('GET', '/labels/label_globex_1', as('acme'));
    assert.equal(hidden.status, 404, 'the generic show finds it as a missing one');
    const gqlLabels = await gql('{ labels(page: 1, perPage: 5) { total names } }', as('acme'));
    assert.deepEqual(gqlLabels.data?.labels, { total: 3, names: ['a1', 'a2', 'a3'] });
  });

  it("shows no hidden referenced record: a note an admin filed in globex's folder links no folder for acme", async () => {
    const filed = await call('PATCH', `/notes/${ids.acmeNote}`, as('-', 'admin'), { folder: ids.globexFolder });
    assert.equal(filed.status, 200, JSON.stringify(filed.body));
    try {
      const shown = await call('GET', `/notes/${ids.acmeNote}`, as('acme'));
      assert.equal(shown.status, 200);
      assert.equal(shown.body._links.folder, undefined, 'no link to the hidden folder');
      assert.equal(shown.body._embedded, undefined, 'nothing embedded');
      const viaGraphql = await gql(`{ note(externalId: "${ids.acmeNote}") { title folder { name } } }`, as('acme'));
      assert.equal(viaGraphql.errors, undefined, JSON.stringify(viaGraphql));
      assert.deepEqual(viaGraphql.data?.note, { title: 'mine', folder: null }, 'context.load finds no hidden folder');
      const admin = await gql(`{ note(externalId: "${ids.acmeNote}") { folder { name } } }`, as('-', 'admin'));
      assert.deepEqual(admin.data?.note, { folder: { name: 'globex' } });
    } finally {
      await Notes().update(ids.acmeNote, { folder: null });
    }
  });

  it('asSystem(model) reads everything: the census finds and counts every tenant', async () => {
    const found = await call('GET', `/census/${ids.globexNote}`, as('acme'));
    assert.equal(found.status, 200, JSON.stringify(found.body));
    assert.equal(found.body.owner, 'globex');
    const counted = await call('GET', '/census?per_page=100', as('acme'));
    assert.equal(counted.body.total, await ownerCount('fixture_tenant_notes'));
  });
});

describe('a GraphQL resolver reading through context.models', () => {
  it("finds another tenant's record as a missing one, lists and counts only the caller's; an admin sees all", async () => {
    const hidden = await gql(`{ note(externalId: "${ids.globexNote}") { title } }`, as('acme'));
    const missing = await gql(`{ note(externalId: "${MISSING}") { title } }`, as('acme'));
    assert.deepEqual(hidden, missing);
    assert.deepEqual(hidden, { data: { note: null } });
    const listed = await gql('{ notes(page: 1, perPage: 100) { total owners } }', as('acme'));
    const page = listed.data?.notes as unknown as { total: number; owners: string[] };
    assert.ok(page.owners.length > 0 && page.owners.every((owner) => owner === 'acme'), JSON.stringify(listed));
    assert.equal(page.total, await ownerCount('fixture_tenant_notes', 'acme'));
    const asked = await gql('{ notes(page: 1, perPage: 100, owner: "globex") { total owners } }', as('acme'));
    assert.deepEqual(asked.data?.notes, { total: 0, owners: [] }, 'asking for another owner lists nothing');
    const own = await gql('{ notes(page: 1, perPage: 100, owner: "acme") { total } }', as('acme'));
    assert.deepEqual(own.data?.notes, { total: page.total });
    const byKey = await gql(`{ notesByKey(keys: ["${ids.acmeNote}", "${ids.globexNote}"]) { owner } }`, as('acme'));
    assert.deepEqual(byKey.data?.notesByKey, [{ owner: 'acme' }], 'findMany leaves the hidden one out');
    const admin = await gql('{ notes(page: 1, perPage: 100) { total } }', as('-', 'admin'));
    assert.deepEqual(admin.data?.notes, { total: await ownerCount('fixture_tenant_notes') });
    const adminFound = await gql(`{ note(externalId: "${ids.globexNote}") { owner } }`, as('-', 'admin'));
    assert.equal(adminFound.data?.note?.owner, 'globex');
  });
});
