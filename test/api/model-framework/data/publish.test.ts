import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { getJson, seed, startApp, truncate, type TestApp } from '../../fixtures/app.ts';

/** Statements the server sent while `run` ran. */
async function statementsDuring(app: TestApp, run: () => Promise<unknown>): Promise<string[]> {
  const from = app.statements.length;
  await run();
  return app.statements.slice(from);
}

const touching = (statements: string[], table: string) =>
  statements.filter((text) => new RegExp(`from "?${table}"?`, 'i').test(text));

describe('foreign keys over a page are looked up in one statement per referenced model', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
    const { authors, posts } = await seed(app, { authors: 5, posts: 40 });
    // half the posts also get a reviewer: a second foreign key to the same model
    const Post = app.web.api?.models.get('Post');
    for (const [index, externalId] of posts.entries())
      if (index % 2 === 0) await Post?.update(externalId, { reviewer: authors[(index + 1) % 5] });
  });

  for (const perPage of [5, 40]) {
    it(`a page of ${perPage} posts with two author keys costs count + page + one authors lookup`, async () => {
      const statements = await statementsDuring(app, async () => {
        const { status, body } = await getJson(`${app.api}/posts?per_page=${perPage}`);
        assert.equal(status, 200);
        assert.equal(body.count, perPage);
        for (const post of body._embedded.posts) assert.match(post.author, /^[A-Za-z0-9_-]{22}$/);
      });
      assert.equal(touching(statements, 'fixture_authors').length, 1, statements.join('\n'));
      assert.equal(touching(statements, 'fixture_posts').length, 2, 'a count and a page');
      assert.equal(statements.length, 3, statements.join('\n'));
    });
  }

  it('the lookup returns each referenced externalId exactly as stored', async () => {
    const { body } = await getJson(`${app.api}/posts?per_page=40`);
    const rows = await app.db.sql<{ title: string; author: string; reviewer: string | null }[]>`
      select p.title, a.external_id as author, r.external_id as reviewer
      from fixture_posts p join fixture_authors a on a.id = p.author_id left join fixture_authors r on r.id = p.reviewer_id`;
    const expected = new Map(rows.map((row) => [row.title, row]));
    for (const post of body._embedded.posts) {
      assert.equal(post.author, expected.get(post.title)?.author);
      assert.equal(post.reviewer, expected.get(post.title)?.reviewer);
    }
  });

  it('a page whose rows reference nothing sends no lookup at all', async () => {
    const Post = app.web.api?.models.get('Post');
    const record = await Post?.create({ title: 'No author' });
    assert.ok(record);
    const statements = await statementsDuring(app, () => getJson(`${app.api}/posts/${record.externalId}`));
    assert.equal(touching(statements, 'fixture_authors').length, 0, statements.join('\n'));
  });
});

describe('Model.paginate() and publish()', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
    await truncate(app.db);
    await seed(app, { authors: 2, posts: 5 });
  });

  it('paginate answers {records, page, perPage, total, pages, deepestPage}', async () => {
    const Post = app.web.api?.models.get('Post');
    const page = await Post?.paginate({ page: 2, perPage: 2 });
    assert.ok(page);
    assert.deepEqual(Object.keys(page).sort(), ['deepestPage', 'page', 'pages', 'perPage', 'records', 'total']);
    assert.deepEqual([page.page, page.perPage, page.total, page.pages, page.records.length], [2, 2, 5, 3, 2]);
    assert.equal(page.deepestPage, 5_001, 'api.maxPageOffset (10,000) records in, at 2 a page');
    assert.match(page.records[0].id, /^\d+$/, 'records keep the internal id for the server');
  });

  it('publish turns a plain object with an internal foreign key into the public form', async () => {
    const models = app.web.api?.models;
    const author = await models?.get('Author')?.create({ name: 'Plain' });
    assert.ok(author);
    const published = await models?.get('Post')?.publish({ title: 'plain', author: author.id, id: '999', secret: 'x' });
    assert.deepEqual(published, { title: 'plain', author: author.externalId });
  });

  it('publish keeps a foreign key that is already an externalId', async () => {
    const published = await app.web.api?.models.get('Post')?.publish({ title: 't', author: 'AlreadyPublicIdAAAAAAA' });
    assert.equal(published?.author, 'AlreadyPublicIdAAAAAAA');
  });
});
