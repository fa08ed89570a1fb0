import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { getJson, seed, send, startApp, type TestApp } from '../fixtures/app.ts';

// posts: update/edit need editor or admin, destroy needs admin (fixtures/app.ts ROUTES)
const AS = (roles: string) => ({ 'X-Test-Principal': `u;${roles}` });

describe("HAL links are filtered by the principal's roles", () => {
  let app: TestApp;
  let post: string;
  before(async () => {
    app = await startApp();
    ({
      posts: [post],
    } = await seed(app, { authors: 1, posts: 1 }));
  });

  const rels = async (headers: Record<string, string>) =>
    Object.keys((await getJson(`${app.api}/posts/${post}`, headers)).body._links).sort();

  // `author` links the post's author (authors are open to anyone: fixtures/app.ts ROUTES)
  it('anonymous: self and collection only (no edit, update, destroy)', async () => {
    assert.deepEqual(await rels({}), ['author', 'collection', 'self']);
  });

  it('an editor may update and edit but gets no destroy link', async () => {
    assert.deepEqual(await rels(AS('editor')), ['author', 'collection', 'edit', 'self', 'update']);
  });

  it('an admin gets every link, destroy included', async () => {
    assert.deepEqual(await rels(AS('admin')), ['author', 'collection', 'destroy', 'edit', 'self', 'update']);
  });

  it('embedded items of a collection are filtered the same way', async () => {
    const editor = await getJson(`${app.api}/posts`, AS('editor'));
    const item = editor.body._embedded.posts[0];
    assert.equal('destroy' in item._links, false);
    assert.equal('update' in item._links, true);
  });

  it('collection links follow the rules too: a route whose create needs a role hides create and new', async () => {
    const locked = await startApp({
      routes: { 'resources posts': { scope: 'api/v1', roles: { create: ['admin'], new: ['admin'] } } },
    });
    const anonymous = (await getJson(`${locked.api}/posts`)).body._links;
    assert.equal('create' in anonymous, false);
    assert.equal('new' in anonymous, false);
    const admin = (await getJson(`${locked.api}/posts`, AS('admin'))).body._links;
    assert.deepEqual(admin.create, { href: '/api/v1/posts', method: 'POST' });
    assert.deepEqual(admin.new, { href: '/api/v1/posts/new' });
  });

  it('the role guard refuses what the links hide: 401 APP_UNAUTHENTICATED without a principal, 403 APP_FORBIDDEN without the role', async () => {
    const anonymous = await send('DELETE', `${app.api}/posts/${post}`, undefined);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.code, 'APP_UNAUTHENTICATED');
    const editor = await send('DELETE', `${app.api}/posts/${post}`, undefined, AS('editor'));
    assert.equal(editor.status, 403);
    assert.equal(editor.body.code, 'APP_FORBIDDEN');
    assert.deepEqual(editor.body.data, { action: 'destroy', role: 'editor' }, 'what was refused, and to whom');
    assert.equal((await getJson(`${app.api}/posts/${post}`)).status, 200, 'still there');
  });

  it('a role list on the route covers every action; "*" admits any authenticated principal', async () => {
    const members = await startApp({ routes: { 'crud authors': { scope: 'api/v1', roles: ['*'] } } });
    assert.equal((await getJson(`${members.api}/authors`)).status, 401);
    const listed = await getJson(`${members.api}/authors`, AS(''));
    assert.equal(listed.status, 200);
    assert.equal(listed.headers.get('cache-control'), 'no-store', 'authenticated answers are not stored');
  });
});
