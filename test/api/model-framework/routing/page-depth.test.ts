/**
 * A declared model's listings page no deeper than `api.maxPageOffset` records, as every listing
 * of the service (PostgreSQL reads every record an OFFSET skips): `Model.paginate()` refuses a
 * page starting further in with 422 `APP_PAGE_TOO_DEEP`, so the generic REST index and a
 * GraphQL resolver that pages the model both refuse it, and the index's paging links stop at the
 * deepest page answered.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { GraphqlContext } from '../../../../api/graphql/context.ts';
import { defineModel, type ModelDeclaration } from '../../../../api/model-framework/data/types.ts';
import { Author, Post } from '../../fixtures/models.ts';
import { getJson, seed, startApp, type TestApp } from '../../fixtures/app.ts';

/** Post with a paged GraphQL list, as docs/graphql.md shows. */
const PagedPost: ModelDeclaration = defineModel({
  ...Post,
  graphql: {
    types: /* GraphQL */ `
      type Post { externalId: ID! title: String! }
      type Query { posts(page: Int!, perPage: Int!): [Post!]! }
    `,
    resolvers: {
      Query: {
        posts: async (_parent: unknown, args: Record<string, unknown>, context: unknown) =>
          (
            await (context as GraphqlContext).models
              .get('Post')!
              .paginate({ page: Number(args.page), perPage: Number(args.perPage) })
          ).records,
      },
    },
  },
});

async function gql(app: TestApp, query: string) {
  const response = await fetch(`${app.base}/_app/gql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query }),
  });
  return (await response.json()) as {
    data?: { posts?: unknown[] } | null;
    errors?: { extensions?: { code?: string; data?: { deepestPage?: number } } }[];
  };
}

describe("a model's listings past the paging bound", () => {
  let app: TestApp;
  const pageOf = (href: string) => Number(new URL(href, app.base).searchParams.get('page'));

  before(async () => {
    // 6 posts; with 4 records skipped at most the deepest page of 2 is page 3, of 1 page 5
    app = await startApp({ flags: { api: { maxPageOffset: 4 } }, models: [Author, PagedPost] });
    await seed(app, { authors: 1, posts: 6 });
  });

  it('the generic REST index answers the deepest page and refuses the next with 422 APP_PAGE_TOO_DEEP', async () => {
    const deepest = await getJson(`${app.api}/posts?per_page=2&page=3`);
    assert.equal(deepest.status, 200, JSON.stringify(deepest.body));
    assert.equal(deepest.body._embedded.posts.length, 2);
    const past = await getJson(`${app.api}/posts?per_page=2&page=4`);
    assert.equal(past.status, 422, JSON.stringify(past.body));
    assert.match(past.headers.get('content-type') ?? '', /application\/problem\+json/);
    assert.equal(past.body.code, 'APP_PAGE_TOO_DEEP');
    assert.equal(past.body.data.deepestPage, 3);
    const far = await getJson(`${app.api}/posts?per_page=100&page=1000000000`);
    assert.equal(far.body.code, 'APP_PAGE_TOO_DEEP', JSON.stringify(far.body));
  });

  it("the generic REST index's paging links stop at the deepest page answered", async () => {
    const first = await getJson(`${app.api}/posts?per_page=1`);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.total, 6);
    assert.equal(pageOf(first.body._links.last.href), 5);
    const deepest = await getJson(`${app.api}/posts?per_page=1&page=5`);
    assert.equal(deepest.status, 200, JSON.stringify(deepest.body));
    assert.equal(deepest.body._links.next, undefined, JSON.stringify(deepest.body._links));
  });

  it('a GraphQL resolver paging the model answers the deepest page and gets APP_PAGE_TOO_DEEP past it', async () => {
    const deepest = await gql(app, '{ posts(page: 3, perPage: 2) { title } }');
    assert.equal(deepest.errors, undefined, JSON.stringify(deepest));
    assert.equal(deepest.data?.posts?.length, 2);
    const past = await gql(app, '{ posts(page: 4, perPage: 2) { title } }');
    assert.equal(past.errors?.[0]?.extensions?.code, 'APP_PAGE_TOO_DEEP', JSON.stringify(past));
    assert.equal(past.errors?.[0]?.extensions?.data?.deepestPage, 3, JSON.stringify(past));
  });
});
