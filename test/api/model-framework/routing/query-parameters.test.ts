/**
 * The query parameters of the generic model API: a listing accepts `page` and `per_page`, every
 * other action none; anything else is 422 `APP_QUERY_PARAMETER_UNKNOWN` naming the parameter as
 * given, and its paging links never carry one it refuses. A hand-written action declares its own
 * with `acceptsQuery`, and one that declares nothing is left to read what it likes.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import {
  acceptedNames,
  acceptsQuery,
  declaredQuery,
  unknownParameter,
} from '../../../../api/model-framework/routing/query-parameters.ts';
import { ROUTES, getJson, seed, startApp, type TestApp } from '../../fixtures/app.ts';

const EDITOR = { 'X-Test-Principal': 'u1;editor,admin' };

async function send(method: string, url: string, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: { Accept: 'application/json', ...EDITOR, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

function assertRefused(
  answer: { status: number; headers: Headers; body: { code: string; data: { parameter: string; accepted: string[] } } },
  parameter: string,
  accepted: readonly string[],
): void {
  assert.equal(answer.status, 422, JSON.stringify(answer.body));
  assert.match(String(answer.headers.get('content-type')), /application\/problem\+json/);
  assert.equal(answer.body.code, 'APP_QUERY_PARAMETER_UNKNOWN');
  assert.equal(answer.body.data.parameter, parameter);
  assert.deepEqual(answer.body.data.accepted, accepted);
}

describe('query parameters: the declaration and its refusal', () => {
  it('names the first unknown parameter in the order given, as written, and lists what is accepted', () => {
    const accepted = { parameters: ['status', 'owner'], paged: true };
    assert.deepEqual(acceptedNames(accepted), ['status', 'owner', 'page', 'per_page']);
    assert.equal(unknownParameter({ status: 'dead', page: '2', per_page: '5' }, accepted), undefined);
    const refusal = unknownParameter({ status: 'dead', 'owner[]': 'acme', stauts: 'x' }, accepted);
    assert.ok(refusal);
    assert.equal(refusal.status, 422);
    assert.equal(refusal.code, 'APP_QUERY_PARAMETER_UNKNOWN');
    assert.deepEqual(refusal.data, { parameter: 'owner[]', accepted: ['status', 'owner', 'page', 'per_page'] });
    assert.match(refusal.message, /"owner\[\]" \(and "stauts"\); this route accepts status, owner, page, per_page/);
  });

  it('an action that is not paged refuses page and per_page; one that declares nothing says it accepts none', () => {
    const none = unknownParameter({ page: '1' }, { parameters: [], paged: false });
    assert.deepEqual(none?.data, { parameter: 'page', accepted: [] });
    assert.match(none?.message ?? '', /accepts no query parameter/);
  });

  it('acceptsQuery keeps the declaration readable; an undeclared action has none', () => {
    const action = () => undefined;
    const declared = { parameters: ['q'], paged: false };
    assert.equal(declaredQuery(acceptsQuery(declared, action)), declared);
    assert.equal(declaredQuery(action), undefined);
  });
});

describe('query parameters of the generic model API', () => {
  let app: TestApp;
  let posts: string[];
  before(async () => {
    app = await startApp({
      routes: {
        ...ROUTES,
        'GET /search': { controller: 'search.run', scope: 'api/v1' },
        'GET /loose': { controller: 'search.loose', scope: 'api/v1' },
        'GET /titles': { controller: 'search.titles', scope: 'api/v1' },
      },
      controllers: {
        search: {
          // a hand-written action declares what it reads
          run: acceptsQuery({ parameters: ['q'], paged: false }, (ctx) => {
            ctx.body = { q: ctx.query.q };
          }),
          // and one that declares nothing is not checked
          loose: (ctx) => {
            ctx.body = { query: ctx.query };
          },
          // a hand-written listing with a filter of its own (docs/models.md, "Query parameters")
          titles: acceptsQuery({ parameters: ['title'], paged: true }, async (ctx) => {
            const where: Record<string, string> = typeof ctx.query.title === 'string' ? { title: ctx.query.title } : {};
            const page = await ctx.models.get('Post')!.paginate(ctx.pagination(), where);
            await ctx.collection(page.records, page);
          }),
        },
      },
    });
    posts = (await seed(app, { authors: 2, posts: 5 })).posts;
  });

  it('a listing refuses an unknown and a bracketed parameter, naming it, and says it accepts page and per_page', async () => {
    for (const collection of ['posts', 'authors']) {
      for (const [given, named] of [
        ['stauts=dead', 'stauts'],
        ['title[]=x', 'title[]'],
        ['title[0]=x', 'title[0]'],
        ['per_page=2&title=Post%201', 'title'],
      ]) {
        assertRefused(await send('GET', `${app.api}/${collection}?${given}`), named, ['page', 'per_page']);
      }
    }
  });

  it('a listing accepts page and per_page; its paging links carry nothing else and each answers 200', async () => {
    const page = await send('GET', `${app.api}/posts?page=2&per_page=2`);
    assert.equal(page.status, 200);
    for (const rel of ['self', 'first', 'prev', 'next', 'last']) {
      const href = page.body._links[rel].href as string;
      assert.deepEqual([...new URLSearchParams(href.split('?')[1]).keys()], ['page', 'per_page'], rel);
      assert.equal((await getJson(`${app.base}${href}`, EDITOR)).status, 200, `${rel} ${href}`);
    }
  });

  it('show, new, edit accept no parameter; create, update and destroy neither, and refuse before writing', async () => {
    const post = posts[0];
    for (const path of [`/posts/${post}`, '/posts/new', `/posts/${post}/edit`])
      assertRefused(await send('GET', `${app.api}${path}?page=1`), 'page', []);
    assertRefused(await send('POST', `${app.api}/authors?draft=true`, { name: 'Refused' }), 'draft', []);
    assertRefused(await send('PATCH', `${app.api}/posts/${post}?x=1`, { title: 'Changed' }), 'x', []);
    assertRefused(await send('DELETE', `${app.api}/posts/${post}?force=true`), 'force', []);
    const kept = await send('GET', `${app.api}/posts/${post}`);
    assert.equal(kept.status, 200, 'not deleted');
    assert.equal(kept.body.title, 'Post 1', 'not changed');
    const authors = await send('GET', `${app.api}/authors?per_page=100`);
    assert.ok(!authors.body._embedded.authors.some((author: { name: string }) => author.name === 'Refused'));
  });

  it('the paging links of a hand-written listing keep the filters it declared, then page and per_page', async () => {
    const page = await send('GET', `${app.api}/titles?per_page=1&title=Post%201`);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.equal(page.body.total, 1);
    for (const rel of ['self', 'first', 'last']) {
      const href = page.body._links[rel].href as string;
      assert.deepEqual(
        [...new URLSearchParams(href.split('?')[1])],
        [
          ['title', 'Post 1'],
          ['page', '1'],
          ['per_page', '1'],
        ],
      );
      const followed = await getJson(`${app.base}${href}`, EDITOR);
      assert.equal(followed.status, 200, `${rel} ${href}`);
      assert.equal((followed.body as { total: number }).total, 1, `${rel} keeps the filter`);
    }
  });

  it('a hand-written action refuses what it did not declare; one that declared nothing reads what it likes', async () => {
    assert.deepEqual((await send('GET', `${app.api}/search?q=x`)).body, { q: 'x' });
    assertRefused(await send('GET', `${app.api}/search?query=x`), 'query', ['q']);
    assert.deepEqual((await send('GET', `${app.api}/loose?anything=1`)).body, { query: { anything: '1' } });
  });
});
