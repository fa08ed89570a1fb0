import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { graphql, type GraphQLObjectType } from 'graphql';
import type { Contribution } from '../../../api/graphql/contribution.ts';
import { assembleSchema, GraphqlSchemaError } from '../../../api/graphql/schema.ts';
import type { ModelDeclaration } from '../../../api/model-framework/data/types.ts';
import { getJson } from '../fixtures/app.ts';
import { AuthorWithGraphql, PostWithGraphql, post, startGraphqlApp } from './fixtures.ts';

const contribution = (source: string, types: string, resolvers: Contribution['resolvers'] = {}): Contribution => ({
  source,
  types,
  resolvers,
});

/** The schema error of `contributions` (fails when they compile). */
function failure(contributions: Contribution[]): GraphqlSchemaError {
  try {
    assembleSchema(contributions);
  } catch (error) {
    assert.ok(error instanceof GraphqlSchemaError, String(error));
    return error;
  }
  assert.fail('the schema compiled');
}

describe('schema assembly: one schema merged from every declaration', () => {
  it('two declarations that both declare Query each add their fields, with their resolvers', async () => {
    const schema = assembleSchema([
      contribution('model Author', 'type Author { name: String } type Query { authors: [Author] }', {
        Query: { authors: () => [{ name: 'Ann' }] },
      }),
      contribution('model Post', 'type Post { title: String } extend type Query { posts: [Post] }', {
        Query: { posts: () => [{ title: 'Hi' }] },
      }),
      contribution('model Tag', 'type Tag { label: String } type Query { tags: [Tag] }', { Query: { tags: () => [] } }),
    ]);
    assert.deepEqual(Object.keys(schema.getQueryType()?.getFields() ?? {}), ['authors', 'posts', 'tags']);
    const result = await graphql({ schema, source: '{ authors { name } posts { title } tags { label } }' });
    assert.deepEqual(JSON.parse(JSON.stringify(result)), {
      data: { authors: [{ name: 'Ann' }], posts: [{ title: 'Hi' }], tags: [] },
    });
  });

  it('two declarations may extend one object type, and repeat a field with the same type', () => {
    const schema = assembleSchema([
      contribution('model Author', 'type Author { id: ID! name: String } type Query { a: Author }'),
      contribution('model Post', 'type Post { id: ID! } extend type Author { id: ID! posts: [Post] }'),
    ]);
    assert.deepEqual(Object.keys((schema.getType('Author') as GraphQLObjectType).getFields()), ['id', 'name', 'posts']);
  });

  it('a field declared with two types is refused, naming both models and both types', () => {
    const error = failure([
      contribution('model Author', 'type Author { id: ID } type Query { a: Author }'),
      contribution('model Post', 'type Author { id: Int }'),
    ]);
    assert.deepEqual([...error.sources].sort(), ['model Author', 'model Post']);
    assert.match(error.message, /Author\.id is declared as ID by model Author and as Int by model Post/);
  });

  it('one name declared as two kinds is refused (an object type and an input)', () => {
    const error = failure([
      contribution('model A', 'type Thing { x: Int } type Query { t: Thing }'),
      contribution('model B', 'input Thing { x: Int }'),
    ]);
    assert.match(error.message, /Thing is declared as an object type by model A and as an input by model B/);
    assert.deepEqual([...error.sources].sort(), ['model A', 'model B']);
  });

  it('a resolver for a field that is not in the SDL is refused, naming the model', () => {
    const error = failure([
      contribution('model Post', 'type Query { posts: [String] }', { Query: { postz: () => [] } }),
    ]);
    assert.deepEqual(error.sources, ['model Post']);
    assert.match(error.message, /model Post resolves Query\.postz, but the SDL has no such field/);
    const unknownType = failure([
      contribution('model Post', 'type Query { posts: [String] }', { Comment: { body: () => '' } }),
    ]);
    assert.match(unknownType.message, /model Post has resolvers for type Comment, which no type definition declares/);
  });

  it('one field resolved by two models is refused rather than one silently replacing the other', () => {
    const error = failure([
      contribution('model A', 'type Query { count: Int }', { Query: { count: () => 1 } }),
      contribution('model B', 'extend type Query { count: Int }', { Query: { count: () => 2 } }),
    ]);
    assert.match(error.message, /Query\.count is resolved by both model A and model B/);
  });

  it('SDL that does not parse, and a type referenced but never declared, are refused with the source', () => {
    const syntax = failure([contribution('model Post', 'type Query { posts: [String] ')]);
    assert.match(syntax.message, /model Post: graphql\.types: Syntax Error/);
    const unknown = failure([
      contribution('model Author', 'type Author { name: String } type Query { a: Author }'),
      contribution('model Post', 'extend type Query { posts: [Comment] }'),
    ]);
    assert.match(unknown.message, /Unknown type "Comment"/);
    assert.deepEqual(unknown.sources, ['model Post']);
  });
});

/** Post declares Author.name again with another type: the merged schema cannot compile. */
const BrokenPost: ModelDeclaration = {
  ...PostWithGraphql,
  graphql: {
    types: `${PostWithGraphql.graphql?.types}\n extend type Author { name: Int }`,
    resolvers: PostWithGraphql.graphql?.resolvers ?? {},
  },
};

describe('failure isolation: a broken declaration turns GraphQL off and nothing else', () => {
  it('REST and health keep working, the GraphQL path answers 503 problem+json saying why, one error names the models', async () => {
    const app = await startGraphqlApp({ models: [AuthorWithGraphql, BrokenPost] });
    assert.equal(app.web.graphql?.on, false);

    const rest = await getJson(`${app.api}/authors`);
    assert.equal(rest.status, 200);
    assert.equal((await fetch(`${app.base}/livez`)).status, 200);
    assert.equal((await fetch(`${app.base}/readyz`)).status, 200);

    const answer = await post(app, '{ __typename }');
    assert.equal(answer.status, 503);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const problem = answer.body as unknown as { code: string; detail: string; data: { sources: string[] } };
    assert.equal(problem.code, 'APP_GRAPHQL_UNAVAILABLE');
    assert.match(
      problem.detail,
      /the GraphQL service is off: its schema does not compile \(model Author, model Post\)/,
    );
    assert.deepEqual([...problem.data.sources].sort(), ['model Author', 'model Post']);

    const errors = app.logs.filter((line) => line.level === 50 && String(line.msg).startsWith('GraphQL service off'));
    assert.equal(errors.length, 1);
    assert.match(String(errors[0].msg), /Author\.name is declared as String! by model Author and as Int by model Post/);

    const ran = await app.web.graphql?.run('{ __typename }');
    assert.equal(ran?.errors?.[0]?.extensions?.code, 'APP_GRAPHQL_UNAVAILABLE');
  });

  it('the service comes back when the schema is fixed and the process restarts', async () => {
    const app = await startGraphqlApp({ models: [AuthorWithGraphql, PostWithGraphql] });
    assert.equal(app.web.graphql?.on, true);
    const answer = await post(app, '{ __typename }');
    assert.deepEqual(answer.body, { data: { __typename: 'Query' } });
  });

  it('graphql: false serves nothing at the path (an ordinary 404) and builds no service', async () => {
    const app = await startGraphqlApp({ graphql: false });
    assert.equal(app.web.graphql, undefined);
    const answer = await post(app, '{ __typename }');
    assert.equal(answer.status, 404);
  });

  it('a string sets the path', async () => {
    const app = await startGraphqlApp({ flags: { graphql: '/graphql' } });
    assert.equal((await post(app, '{ __typename }', { path: '/graphql' })).status, 200);
    assert.equal((await post(app, '{ __typename }')).status, 404);
  });
});
