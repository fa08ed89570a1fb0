/**
 * GraphQL test helpers: the test models (test/api/fixtures) with `graphql` declarations, a
 * POST/GET helper, and a web process started with GraphQL flags. Servers and the database are
 * the shared fixture's (stopped and dropped when the test file ends).
 */
import type { Middleware } from 'koa';
import type { ModelDeclaration } from '../../../api/model-framework/data/types.ts';
import type { GraphqlContext } from '../../../api/graphql/context.ts';
import { Author, Post } from '../fixtures/models.ts';
import { startApp, type AppOptions, type TestApp } from '../fixtures/app.ts';

type Resolver = (parent: unknown, args: Record<string, unknown>, context?: unknown) => unknown;
const ctx = (context: unknown) => context as GraphqlContext;

/** Author with a `Query.authors` list. */
export const AuthorWithGraphql: ModelDeclaration = {
  ...Author,
  graphql: {
    types: /* GraphQL */ `
      type Author { externalId: ID! name: String! email: String }
      type Query { authors(perPage: Int = 25): [Author!]! }
    `,
    resolvers: {
      Query: {
        authors: (async (_parent, args, context) =>
          (
            await ctx(context)
              .models.get('Author')!
              .paginate({ page: 1, perPage: Number(args.perPage) })
          ).records) as Resolver,
      },
    },
  },
};

/** Post extending Query too, its author loaded in batches per request. */
export const PostWithGraphql: ModelDeclaration = {
  ...Post,
  graphql: {
    types: /* GraphQL */ `
      type Post { externalId: ID! title: String! views: Int author: Author reviewer: Author }
      extend type Query { posts(perPage: Int = 25): [Post!]! post(externalId: ID!): Post }
    `,
    resolvers: {
      Query: {
        posts: (async (_parent, args, context) =>
          (
            await ctx(context)
              .models.get('Post')!
              .paginate({ page: 1, perPage: Number(args.perPage) })
          ).records) as Resolver,
        post: ((_parent, args, context) => ctx(context).load('Post', String(args.externalId))) as Resolver,
      },
      Post: {
        author: ((post: unknown, _args, context) =>
          ctx(context).load('Author', (post as { author: string | null }).author)) as Resolver,
        reviewer: ((post: unknown, _args, context) =>
          ctx(context).load('Author', (post as { reviewer: string | null }).reviewer)) as Resolver,
      },
    },
  },
};

export const GRAPHQL_MODELS: readonly ModelDeclaration[] = [AuthorWithGraphql, PostWithGraphql];

/**
 * Adds the tenant to the fixture's stub principal: `X-Test-Principal: <id>;<role>,<role>;<owner>`
 * (what an API token's principal carries; shared/tokens/principal.ts).
 */
export function stubOwner(): Middleware {
  return async function stubOwner(ctx, next) {
    const owner = ctx.get('X-Test-Principal').split(';')[2];
    if (ctx.state.principal && owner) ctx.state.principal = { ...ctx.state.principal, owner };
    await next();
  };
}

/** The header of a caller: `as('admin')`, `as('member', 'acme')`. */
export const as = (role: string, owner = '', id = `${role}-${owner || 'all'}`) => ({
  'X-Test-Principal': `${id};${role};${owner}`,
});

/** A web process with the GraphQL test models; `graphql` flags laid over the defaults. */
export function startGraphqlApp(
  options: AppOptions & { graphql?: Record<string, unknown> | false; env?: string } = {},
): Promise<TestApp> {
  const { graphql, env, ...rest } = options;
  return startApp({
    ...rest,
    models: rest.models ?? GRAPHQL_MODELS,
    flags: { ...(env ? { env } : {}), ...(graphql === undefined ? {} : { graphql }), ...rest.flags },
    setup(web) {
      web.plug('user', stubOwner());
      rest.setup?.(web);
    },
  });
}

export interface GraphqlAnswer {
  status: number;
  headers: Headers;
  body: {
    data?: Record<string, unknown> | null;
    errors?: Array<{ message: string; extensions?: Record<string, unknown>; path?: unknown[] }>;
    [key: string]: unknown;
  };
}

/** POSTs one operation to the GraphQL path. */
export async function post(
  app: TestApp,
  query: string,
  options: {
    variables?: Record<string, unknown>;
    headers?: Record<string, string>;
    operationName?: string;
    path?: string;
  } = {},
): Promise<GraphqlAnswer> {
  const response = await fetch(`${app.base}${options.path ?? '/_app/gql'}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/graphql-response+json', ...options.headers },
    body: JSON.stringify({ query, variables: options.variables, operationName: options.operationName }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : {} };
}
