import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createLoader } from '../../../api/graphql/batch.ts';
import { gql } from '../../../api/graphql/gql.ts';
import { seed, type TestApp } from '../fixtures/app.ts';
import { as, post, startGraphqlApp } from './fixtures.ts';

let app: TestApp;
before(async () => {
  app = await startGraphqlApp();
  await seed(app, { authors: 3, posts: 12 });
});

describe('graphql.run and gql: queries in process', () => {
  it('run(query, variables) answers {data} through the same schema', async () => {
    const result = await app.web.graphql?.run(
      gql`query Posts($n: Int) { posts(perPage: $n) { title author { name } } }`,
      { n: 2 },
    );
    assert.deepEqual(JSON.parse(JSON.stringify(result)), {
      data: {
        posts: [
          { title: 'Post 1', author: { name: 'Author 1' } },
          { title: 'Post 2', author: { name: 'Author 2' } },
        ],
      },
    });
  });

  it('run answers {errors} for a bad query, and the context (principal) reaches the resolvers', async () => {
    const bad = await app.web.graphql?.run('{ nosuch }');
    assert.match(bad?.errors?.[0]?.message ?? '', /Cannot query field "nosuch"/);
    const anonymous = await app.web.graphql?.run('{ webhookEndpoints { total } }');
    assert.equal(anonymous?.errors?.[0]?.extensions?.code, 'APP_UNAUTHENTICATED');
    const admin = await app.web.graphql?.run('{ webhookEndpoints { total } }', null, {
      principal: { id: 'ops', roles: ['admin'] },
    });
    assert.deepEqual(JSON.parse(JSON.stringify(admin?.data)), { webhookEndpoints: { total: 0 } });
  });

  it('gql returns the query text as written, values interpolated', () => {
    const field = 'title';
    assert.equal(gql`{ posts { ${field} } }`, '{ posts { title } }');
  });
});

describe('batch loading of references between models, per request', () => {
  it('a page of posts with author and reviewer reads the authors with one statement, whatever the page size', async () => {
    const count = async (perPage: number) => {
      const before = app.statements.length;
      const answer = await post(app, `{ posts(perPage: ${perPage}) { title author { name } reviewer { name } } }`, {
        headers: as('admin'),
      });
      assert.equal((answer.body.data!.posts as unknown[]).length, perPage);
      return app.statements.slice(before);
    };
    const two = await count(2);
    const twelve = await count(12);
    assert.equal(twelve.length, two.length);
    assert.equal(twelve.length, 3, twelve.join('\n---\n')); // count, page, authors
  });

  it('a loader answers every key of one turn with one batch, keeps answers for the request, and reports a failed batch to each load', async () => {
    const batches: string[][] = [];
    const loader = createLoader<string, string>(async (keys) => {
      batches.push([...keys]);
      return new Map(keys.filter((key) => key !== 'missing').map((key) => [key, key.toUpperCase()]));
    });
    assert.deepEqual(
      await Promise.all([loader.load('a'), loader.load('b'), loader.load('a'), loader.load('missing')]),
      ['A', 'B', 'A', undefined],
    );
    assert.deepEqual(await loader.loadMany(['b', 'c']), ['B', 'C']);
    assert.deepEqual(batches, [['a', 'b', 'missing'], ['c']]);

    const failing = createLoader<string, string>(async () => {
      throw new Error('down');
    });
    const results = await Promise.allSettled([failing.load('x'), failing.load('y')]);
    assert.deepEqual(
      results.map((result) => result.status),
      ['rejected', 'rejected'],
    );
  });
});
