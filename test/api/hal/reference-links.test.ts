/**
 * A record's references are links too: a post's `author` (the Author's `externalId`) is also
 * `_links.author`, which a HAL client (ketting) follows to the Author; given only where the
 * caller could follow it (the referenced route's roles, the referenced model's policy).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Client } from 'ketting';
import { getJson, ROUTES, seed, send, startApp, type TestApp } from '../fixtures/app.ts';
import { Author, Post } from '../fixtures/models.ts';

const ADMIN = { 'X-Test-Principal': 'u1;admin' };

describe('links to referenced records', () => {
  let app: TestApp;
  let authors: string[];
  before(async () => {
    app = await startApp();
    ({ authors } = await seed(app, { authors: 2, posts: 3 }));
  });

  it("a post links its author's record as _links.author, keeps the author field, and links no empty reference", async () => {
    const made = await send('POST', `${app.api}/posts`, { title: 'Linked', author: authors[1] }, ADMIN);
    assert.equal(made.status, 201);
    assert.deepEqual(made.body._links.author, { href: `/api/v1/authors/${authors[1]}` });
    assert.equal(made.body.author, authors[1], 'the plain field is unchanged');
    assert.equal(made.body.reviewer, null);
    assert.equal('reviewer' in made.body._links, false);
    const listed = await getJson(`${app.api}/posts`);
    for (const item of listed.body._embedded.posts)
      assert.deepEqual(item._links.author, { href: `/api/v1/authors/${item.author}` });
  });

  it('ketting follows a post to its author, from the post and from a collection item', async () => {
    const client = new Client(app.base);
    const post = (
      await getJson(`${app.api}/posts/${(await getJson(`${app.api}/posts`)).body._embedded.posts[0].externalId}`)
    ).body;
    const author = await client.go(`/api/v1/posts/${post.externalId}`).follow('author');
    const state = await author.get();
    assert.equal(author.uri, `${app.base}/api/v1/authors/${post.author}`);
    assert.equal(state.data.externalId, post.author);
    assert.match(state.data.name, /^Author \d$/);

    const [first] = await client.go('/api/v1/posts').followAll('posts');
    const viaCollection = await (await first.follow('author')).get();
    assert.equal(viaCollection.data.externalId, (await first.get()).data.author);
  });

  it("no link where the referenced model's show route needs a role the caller lacks", async () => {
    const locked = await startApp({
      routes: { ...ROUTES, 'crud authors': { scope: 'api/v1', roles: { show: ['admin'] } } },
    });
    const [post] = (await getJson(`${locked.api}/posts`)).body._embedded.posts;
    assert.equal('author' in post._links, false, 'anonymous may not show authors');
    assert.equal(typeof post.author, 'string', 'the field stays');
    const admin = await getJson(`${locked.api}/posts/${post.externalId}`, ADMIN);
    assert.deepEqual(admin.body._links.author, { href: `/api/v1/authors/${post.author}` });
  });

  it('no link where the referenced model has no show route', async () => {
    const unrouted = await startApp({ routes: { 'resources posts': ROUTES['resources posts'] } });
    const [post] = (await getJson(`${unrouted.api}/posts`)).body._embedded.posts;
    assert.equal('author' in post._links, false);
    assert.equal(typeof post.author, 'string');
  });

  it("no link to a record the referenced model's policy hides; a page reads the referenced records in one statement", async () => {
    const hiding = await startApp({
      models: [
        { ...Author, policy: (_principal, action, record) => action !== 'show' || record?.name !== 'Author 1' },
        Post,
      ],
    });
    const hidden = authors[0]; // "Author 1" (seed)
    hiding.statements.length = 0;
    const page = (await getJson(`${hiding.api}/posts?per_page=100`)).body._embedded.posts as Array<{
      author: string;
      _links: Record<string, { href: string }>;
    }>;
    assert.ok(page.some((post) => post.author === hidden) && page.some((post) => post.author !== hidden));
    for (const post of page) {
      if (post.author === hidden) assert.equal('author' in post._links, false);
      else assert.deepEqual(post._links.author, { href: `/api/v1/authors/${post.author}` });
    }
    // the page's authors, read for their policy (besides the lookup of their externalIds that publishing does)
    const lookups = hiding.statements.filter((statement) =>
      /from "fixture_authors"\s+where id = any\(\$1::bigint\[\]\) or external_id = any/.test(statement),
    );
    assert.equal(lookups.length, 1, hiding.statements.join('\n'));
  });
});
