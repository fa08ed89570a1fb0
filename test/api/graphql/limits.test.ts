import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelDeclaration } from '../../../api/model-framework/data/types.ts';
import { Author } from '../fixtures/models.ts';
import { post, startGraphqlApp, type GraphqlAnswer } from './fixtures.ts';

/** A schema as deep and wide as a query likes (no database needed): Person -> friend -> friend … */
const PEOPLE: ModelDeclaration = {
  ...Author,
  graphql: {
    types: /* GraphQL */ `
      type Person { name: String! friend: Person friends(first: Int): [Person!]! }
      type Query { me: Person }
    `,
    resolvers: {
      Query: { me: () => ({ name: 'me' }) },
      Person: {
        friend: () => ({ name: 'friend' }),
        friends: (_parent, args) =>
          Array.from({ length: Number(args.first ?? 3) }, (_, i) => ({ name: `friend ${i}` })),
      },
    },
  },
};

/** Starts a server with one limit set, answers `query` at `accept`. */
async function within(limit: Record<string, number>) {
  const app = await startGraphqlApp({ models: [PEOPLE], routes: {}, graphql: limit });
  return (query: string, accept = 'application/graphql-response+json') =>
    post(app, query, { headers: { Accept: accept } });
}

/** A 200 with data and no errors. */
function assertServed(answer: GraphqlAnswer) {
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answer.body.errors, undefined);
  assert.ok(answer.body.data);
}

/** A 400 GraphQL error naming the limit and its key. */
function assertRefused(answer: GraphqlAnswer, limit: string, code: string) {
  assert.equal(answer.status, 400, JSON.stringify(answer.body));
  assert.equal(answer.body.data, undefined);
  const [error] = answer.body.errors ?? [];
  assert.equal(error.extensions?.code, code);
  assert.equal(error.extensions?.limit, limit);
  assert.match(error.message, new RegExp(`graphql\\.${limit}`));
}

describe('GraphQL limits: each at its bound is served, just over it is a 400 GraphQL error naming it', () => {
  it('maxDepth: nesting 3 passes at 3, 4 is refused, fragments expanded', async () => {
    const ask = await within({ maxDepth: 3 });
    assertServed(await ask('{ me { friend { name } } }'));
    assertRefused(await ask('{ me { friend { friend { name } } } }'), 'maxDepth', 'APP_GRAPHQL_MAX_DEPTH');
    assertRefused(
      await ask('{ ...Deep } fragment Deep on Query { me { friend { friend { name } } } }'),
      'maxDepth',
      'APP_GRAPHQL_MAX_DEPTH',
    );
  });

  it('maxAliases: 2 aliases pass at 2, 3 are refused, each use of a fragment counted', async () => {
    const ask = await within({ maxAliases: 2 });
    assertServed(await ask('{ a: me { name } b: me { name } }'));
    assertRefused(
      await ask('{ a: me { name } b: me { name } c: me { name } }'),
      'maxAliases',
      'APP_GRAPHQL_MAX_ALIASES',
    );
    assertRefused(
      await ask('{ me { ...Two friend { ...Two } } } fragment Two on Person { x: name y: name }'),
      'maxAliases',
      'APP_GRAPHQL_MAX_ALIASES',
    );
  });

  it('maxCost: a list multiplies its selection by its size (literal, variable or default)', async () => {
    const ask = await within({ maxCost: 12 });
    // me 1 + friends (1 + 10 × name 1) = 12
    assertServed(await ask('{ me { friends(first: 10) { name } } }'));
    assertRefused(await ask('{ me { friends(first: 11) { name } } }'), 'maxCost', 'APP_GRAPHQL_MAX_COST');
    // without a size, a list counts api.perPage (25) items
    assertRefused(await ask('{ me { friends { name } } }'), 'maxCost', 'APP_GRAPHQL_MAX_COST');
  });

  it("maxCost reads list sizes from the request's variables", async () => {
    const app = await startGraphqlApp({ models: [PEOPLE], routes: {}, graphql: { maxCost: 12 } });
    const query = 'query($n: Int) { me { friends(first: $n) { name } } }';
    assertServed(await post(app, query, { variables: { n: 10 } }));
    assertRefused(await post(app, query, { variables: { n: 11 } }), 'maxCost', 'APP_GRAPHQL_MAX_COST');
  });

  it('maxCost reads a variable left out of the request at its declared default, as the operation runs with it', async () => {
    const app = await startGraphqlApp({ models: [PEOPLE], routes: {}, graphql: { maxCost: 100 } });
    // the default would run 500 friends: me 1 + friends (1 + 500 × name 1)
    const query = 'query($n: Int = 500) { me { friends(first: $n) { name } } }';
    assertRefused(await post(app, query), 'maxCost', 'APP_GRAPHQL_MAX_COST');
    assertServed(await post(app, query, { variables: { n: 10 } }));
    // the document is now kept: a request leaving the variable out again is measured again
    assertRefused(await post(app, query), 'maxCost', 'APP_GRAPHQL_MAX_COST');
  });

  it('maxTokens: 6 tokens pass at 6, 7 are refused before parsing', async () => {
    const ask = await within({ maxTokens: 6 });
    assertServed(await ask('{ me { name } }')); // { me { name } }
    assertRefused(await ask('{ me { name name } }'), 'maxTokens', 'APP_GRAPHQL_MAX_TOKENS');
    assertServed(await ask('# comments are not tokens\n{ me { name } }'));
  });

  it('maxBytes: a document of exactly maxBytes passes, one byte more is refused (UTF-8 bytes, not characters)', async () => {
    const ask = await within({ maxBytes: 15 });
    assertServed(await ask('{ me { name } }')); // 15 bytes
    assertRefused(await ask('{ me { name }  }'), 'maxBytes', 'APP_GRAPHQL_MAX_BYTES');
    assertRefused(await ask('{ me { name}}#é'), 'maxBytes', 'APP_GRAPHQL_MAX_BYTES'); // 15 characters, 16 bytes
  });

  it('a limit is a 400 for application/json clients too (the service refuses to run it)', async () => {
    const ask = await within({ maxDepth: 2 });
    const answer = await ask('{ me { friend { name } } }', 'application/json');
    assertRefused(answer, 'maxDepth', 'APP_GRAPHQL_MAX_DEPTH');
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  });

  it('no query can make it answer 500 or run unbounded: fragment cycles, huge lists and deep nesting are refused', async () => {
    const ask = await within({});
    const cycle = await ask(
      '{ me { ...A } } fragment A on Person { friend { ...B } } fragment B on Person { friend { ...A } }',
    );
    assert.equal(cycle.status, 400);
    const huge = await ask('{ me { friends(first: 1000000) { friends(first: 1000000) { name } } } }');
    assertRefused(huge, 'maxCost', 'APP_GRAPHQL_MAX_COST');
    const deep = await ask(`{ me { ${'friend { '.repeat(300)}name${' }'.repeat(300)} } }`);
    assert.equal(deep.status, 400);
    assert.match(String(deep.body.errors?.[0]?.extensions?.code), /^APP_GRAPHQL_MAX_(TOKENS|DEPTH)$/);
  });
});
