/**
 * The generic controller's writes under a tenant policy: a body sets only the declared fields, an
 * update may not move a record out of the caller's sight (nor tell that record's new owner about
 * it), and a reference may name only a record the caller may see, refused exactly as one that
 * does not exist.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { defineModel } from '../../../../api/model-framework/data/types.ts';
import { startApp, testDatabase, type TestApp } from '../../fixtures/app.ts';
import {
  as,
  createTenantTables,
  Folder,
  NOTE,
  noteRow as storedNote,
  ownerHeader,
} from '../../fixtures/tenant-notes.ts';
import { endpoint, harness } from '../../../worker/helpers.ts';

/** Notes, the policy of docs/models.md: a tenant's own notes, updated while unlocked; changes emitted to the owner. */
const Note = defineModel(NOTE);

let app: TestApp;
const ids: Record<string, string> = {};
async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${app.api}${path}`, {
    method,
    headers,
    body: typeof body === 'string' ? body : body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
const noteRow = (externalId: string) => storedNote(app.db.sql, externalId);
const noteEvents = async () =>
  await app.db.sql<{ type: string; owner: string | null }[]>`
    select type, owner from app_events where type like 'note.%' order by id`;

before(async () => {
  const db = await testDatabase();
  await createTenantTables(db.sql);
  app = await startApp({
    models: [Folder, Note],
    routes: { 'crud notes': { scope: 'api/v1', roles: ['*'] }, 'crud folders': { scope: 'api/v1', roles: ['*'] } },
    setup: (web) => web.plug('user', ownerHeader),
  });
  // both tenants listen to notes, so a change told to the wrong one is written as its event
  const h = harness(db, { webhooks: { allowHttp: true, allowPrivate: true } });
  for (const owner of ['acme', 'globex'])
    await endpoint(h, `http://127.0.0.1:9/${owner}`, { owner, events: ['note.*'] });
  const models = app.web.api!.models;
  ids.acmeFolder = (await models.get('Folder')!.create({ name: 'acme', owner: 'acme' })).externalId;
  ids.globexFolder = (await models.get('Folder')!.create({ name: 'globex', owner: 'globex' })).externalId;
  ids.acmeNote = (await models.get('Note')!.create({ title: 'mine', owner: 'acme' })).externalId;
});

describe('generic controller writes under a policy', () => {
  it('a body setting the key, externalId, timestamps, an undeclared field, __proto__ or constructor is refused and writes nothing', async () => {
    const bodies: unknown[] = [
      { title: 'x', owner: 'acme', id: '1' },
      { title: 'x', owner: 'acme', externalId: ids.acmeNote },
      { title: 'x', owner: 'acme', createdAt: '2020-01-01T00:00:00Z' },
      { title: 'x', owner: 'acme', ownerId: 'globex' },
      { title: 'x', owner: 'acme', constructor: { prototype: { owner: 'globex' } } },
      '{"title":"x","owner":"acme","__proto__":{"owner":"globex"}}',
    ];
    for (const body of bodies) {
      for (const [method, path] of [
        ['POST', '/notes'],
        ['PATCH', `/notes/${ids.acmeNote}`],
      ]) {
        const answer = await call(method, path, as('acme'), body);
        assert.ok([400, 422].includes(answer.status), `${method} ${JSON.stringify(body)}: ${answer.status}`);
        assert.match(answer.body.code, /^APP_BODY_(FIELD_UNKNOWN|INVALID)$/);
      }
    }
    assert.equal((await noteRow(ids.acmeNote)).title, 'mine');
    assert.equal((await app.db.sql`select 1 from fixture_tenant_notes`).length, 1, 'no note was created');
  });

  it('an update that would move the record out of the caller sight (another owner) is 403, writes nothing and tells no one', async () => {
    const before = (await noteEvents()).length;
    const moved = await call('PATCH', `/notes/${ids.acmeNote}`, as('acme'), { title: 'theirs now', owner: 'globex' });
    assert.equal(moved.status, 403, JSON.stringify(moved.body));
    assert.equal(moved.body.code, 'APP_FORBIDDEN');
    assert.deepEqual(await noteRow(ids.acmeNote), { title: 'mine', owner: 'acme', folder_id: null });
    assert.equal((await noteEvents()).length, before, 'no event to either owner');
    const renamed = await call('PATCH', `/notes/${ids.acmeNote}`, as('acme'), { title: 'still mine', locked: true });
    assert.equal(renamed.status, 200, 'a change that keeps the record in sight goes through (locking included)');
    assert.deepEqual((await noteEvents()).slice(before), [{ type: 'note.updated', owner: 'acme' }]);
    await app.web.api!.models.get('Note')!.update(ids.acmeNote, { locked: false });
    const handed = await call('PATCH', `/notes/${ids.acmeNote}`, as('-', 'admin'), { owner: 'globex' });
    assert.equal(handed.status, 200, 'an admin, who sees every owner, moves it');
    await call('PATCH', `/notes/${ids.acmeNote}`, as('-', 'admin'), { owner: 'acme' });
  });

  it("a reference to another tenant's record is 422 APP_REFERENCE_INVALID, the answer for one that does not exist", async () => {
    const unknown = await call('POST', '/notes', as('acme'), { title: 'x', owner: 'acme', folder: 'A'.repeat(22) });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.code, 'APP_REFERENCE_INVALID');
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
    assert.equal((await app.db.sql`select 1 from fixture_tenant_notes where title = 'x'`).length, 0);
    const own = await call('PATCH', `/notes/${ids.acmeNote}`, as('acme'), { folder: ids.acmeFolder });
    assert.equal(own.status, 200, 'its own folder is linked');
    assert.equal(own.body.folder, ids.acmeFolder);
    const admin = await call('POST', '/notes', as('-', 'admin'), {
      title: 'y',
      owner: 'globex',
      folder: ids.globexFolder,
    });
    assert.equal(admin.status, 201, 'an admin links any folder');
  });
});
