/**
 * A declaration's GraphQL resolvers written as docs/models.md and docs/graphql.md write them:
 * `(parent, args, ctx)` with no cast, reading the request's context (`ctx.models`, `ctx.load`).
 * The type check of the suite (tsc) is what fails when `Resolver` types them as `unknown`.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { defineModel } from '../../../../api/model-framework/data/types.ts';
import { Author, Post } from '../../fixtures/models.ts';
import { post, startGraphqlApp } from '../../graphql/fixtures.ts';
import { seed, type TestApp } from '../../fixtures/app.ts';

const AuthorType = defineModel({
  ...Author,
  graphql: { types: 'type Author { externalId: ID! name: String! }', resolvers: {} },
});

const PostType = defineModel({
  ...Post,
  graphql: {
    types: `
      type Post { externalId: ID! title: String! author: Author }
      extend type Query { posts(perPage: Int): [Post!]! }
    `,
    resolvers: {
      Query: {
        posts: async (_parent, args, ctx) =>
          (await ctx.models.get('Post')!.paginate({ page: 1, perPage: args.perPage ?? 25 })).records,
      },
      Post: { author: (post, _args, ctx) => ctx.load('Author', post.author) },
    },
  },
});

describe('a model declaration’s GraphQL resolvers', () => {
  let app: TestApp;
  before(async () => {
    app = await startGraphqlApp({ models: [AuthorType, PostType] });
    await seed(app, { authors: 2, posts: 3 });
  });

  it('read the request context and their arguments as typed, without casts', async () => {
    const answer = await post(app, '{ posts(perPage: 2) { title author { name } } }');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.data?.posts, [
      { title: 'Post 1', author: { name: 'Author 1' } },
      { title: 'Post 2', author: { name: 'Author 2' } },
    ]);
  });

  it('a page size the model refuses is the field error APP_PAGINATION_INVALID, not an internal one', async () => {
    const answer = await post(app, '{ posts(perPage: -1) { title } }');
    assert.equal(answer.body.errors?.[0]?.extensions?.code, 'APP_PAGINATION_INVALID');
  });
});
