/**
 * A routed model's `roles` reach its GraphQL resolvers: `context.authorize` and `context.visible`
 * refuse whom the REST routes refuse, with the same code and message, before the policy; a model
 * no route serves keeps its policy alone.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { GraphqlContext } from '../../../../api/graphql/context.ts';
import { defineModel, type ModelDeclaration } from '../../../../api/model-framework/data/types.ts';
import type { RouteTable } from '../../../../api/model-framework/routing/table.ts';
import { Author, Post } from '../../fixtures/models.ts';
import { seed, send, startApp, type TestApp } from '../../fixtures/app.ts';

type Resolver = (parent: unknown, args: Record<string, unknown>, context?: unknown) => unknown;
const ctx = (context: unknown) => context as GraphqlContext;

/** Post with resolvers that ask for the roles and the policy, as docs/models.md shows. */
const PostWithResolvers: ModelDeclaration = defineModel({
  ...Post,
  graphql: {
    types: /* GraphQL */ `
      type Post { externalId: ID! title: String! }
      type Query { posts: [Post!] post(externalId: ID!): Post }
      type Mutation { renamePost(externalId: ID!, title: String!): Post }
    `,
    resolvers: {
      Query: {
        posts: (async (_parent, _args, context) =>
          ctx(context).visible(
            'Post',
            (await ctx(context).models.get('Post')!.paginate({ page: 1, perPage: 100 })).records,
          )) as Resolver,
        post: (async (_parent, args, context) => {
          const record = await ctx(context).load('Post', String(args.externalId));
          if (record) await ctx(context).authorize('Post', 'show', record);
          return record;
        }) as Resolver,
      },
      Mutation: {
        renamePost: (async (_parent, args, context) => {
          const model = ctx(context).models.get('Post')!;
          const record = await model.find(String(args.externalId));
          if (!record) return null;
          await ctx(context).authorize('Post', 'update', record);
          return model.update(record.externalId, { title: args.title });
        }) as Resolver,
      },
    },
  },
});

/**
 * Posts need a caller; only editors update. A staff-only declaration of the same model comes
 * first: what one declaration allows, GraphQL allows.
 */
const ROUTES: RouteTable = {
  'crud staff-posts': { scope: 'staff', model: 'Post', roles: ['admin'] },
  'resources posts': { scope: 'api/v1', roles: { default: ['*'], update: ['editor', 'admin'] } },
  'crud authors': { scope: 'api/v1' },
};

const member = { 'X-Test-Principal': 'm1;member' };
const editor = { 'X-Test-Principal': 'e1;editor' };

async function gql(app: TestApp, query: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${app.base}/_app/gql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify({ query }),
  });
  return (await response.json()) as {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
}

describe("a routed model's roles in its GraphQL resolvers", () => {
  let routed: TestApp;
  let unrouted: TestApp;
  let post: string;
  before(async () => {
    routed = await startApp({ models: [Author, PostWithResolvers], routes: ROUTES });
    unrouted = await startApp({ models: [Author, PostWithResolvers], routes: { 'crud authors': { scope: 'api/v1' } } });
    ({
      posts: [post],
    } = await seed(routed, { authors: 1, posts: 2 }));
  });

  it('an anonymous caller gets 401 APP_UNAUTHENTICATED from authorize and visible, as from the REST routes', async () => {
    const rest = await send('GET', `${routed.api}/posts/${post}`, undefined);
    assert.equal(rest.status, 401);
    const shown = await gql(routed, `{ post(externalId: "${post}") { title } }`);
    assert.equal(shown.data?.post, null, JSON.stringify(shown));
    assert.equal(shown.errors?.[0]?.extensions?.code, 'APP_UNAUTHENTICATED');
    assert.equal(shown.errors?.[0]?.message, rest.body.detail, 'the same refusal');
    const listed = await gql(routed, '{ posts { title } }');
    assert.equal(listed.data?.posts, null, JSON.stringify(listed));
    assert.equal(listed.errors?.[0]?.extensions?.code, 'APP_UNAUTHENTICATED');
  });

  it('a caller without the role gets 403 APP_FORBIDDEN and nothing changes; one with it goes on to the policy', async () => {
    assert.equal((await send('PATCH', `${routed.api}/posts/${post}`, { title: 'by rest' }, member)).status, 403);
    // every declaration refuses: the refusal is the first one's
    const rest = await send('PATCH', `${routed.base}/staff/staff-posts/${post}`, { title: 'by rest' }, member);
    assert.equal(rest.status, 403);
    const refused = await gql(
      routed,
      `mutation { renamePost(externalId: "${post}", title: "by member") { title } }`,
      member,
    );
    assert.equal(refused.errors?.[0]?.extensions?.code, 'APP_FORBIDDEN', JSON.stringify(refused));
    assert.equal(refused.errors?.[0]?.message, rest.body.detail, 'the same refusal');
    const record = await routed.web.api!.models.get('Post')!.find(post);
    assert.equal(record?.title, 'Post 1', 'the refused rename changed nothing');
    const renamed = await gql(
      routed,
      `mutation { renamePost(externalId: "${post}", title: "by editor") { title } }`,
      editor,
    );
    assert.deepEqual(renamed, { data: { renamePost: { title: 'by editor' } } });
    const listed = await gql(routed, '{ posts { title } }', member);
    assert.equal(
      (listed.data?.posts as unknown[] | undefined)?.length,
      2,
      'any caller may list: the api/v1 declaration allows it',
    );
  });

  it('a model no route serves keeps its policy alone: anonymous callers are answered', async () => {
    const shown = await gql(unrouted, `{ post(externalId: "${post}") { externalId } }`);
    assert.deepEqual(shown, { data: { post: { externalId: post } } });
    const listed = await gql(unrouted, '{ posts { externalId } }');
    assert.equal((listed.data?.posts as unknown[] | undefined)?.length, 2);
    const routedShown = await gql(routed, `{ post(externalId: "${post}") { externalId } }`);
    assert.equal(routedShown.errors?.[0]?.extensions?.code, 'APP_UNAUTHENTICATED', 'the same model, routed');
  });
});
