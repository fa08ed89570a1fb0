/**
 * Every 406 carries a stable code and says what the client could ask for instead: a versioned
 * route asked for another version is `APP_VERSION_NOT_ACCEPTABLE`, an `Accept` that admits none of
 * the media types a path answers with is `APP_NOT_ACCEPTABLE`, each with `data.mediaTypes`.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { defineController } from '../../../api/model-framework/routing/controller.ts';
import { seed, startApp, type TestApp } from '../fixtures/app.ts';

const JSON_TYPES = ['application/json', 'application/hal+json', 'application/vnd.app.v1+json'];

/** posts.show negotiates JSON only, posts.index renders a page (HTML or its page object). */
const posts = defineController({
  async index(ctx) {
    await ctx.render('home', { greeting: 'hello' });
  },
  async show(ctx) {
    await ctx.negotiate({ json: async () => ctx.resource((await ctx.model?.find(ctx.params.externalId)) ?? {}) });
  },
});

interface Problem {
  status: number;
  code?: string;
  detail: string;
  data: { version?: string; requested?: string; accept?: string; mediaTypes: string[] };
}

describe('406 answers', () => {
  let app: TestApp;
  let post: string;
  before(async () => {
    app = await startApp({ controllers: { posts } });
    ({
      posts: [post],
    } = await seed(app, { authors: 1, posts: 1 }));
  });

  const problemOf = async (path: string, accept: string): Promise<Problem> => {
    const response = await fetch(`${app.base}${path}`, { headers: { Accept: accept } });
    assert.equal(response.status, 406, `${path} ${accept}`);
    assert.equal(response.headers.get('content-type'), 'application/problem+json');
    return (await response.json()) as Problem;
  };

  it('a versioned route asked for another version is APP_VERSION_NOT_ACCEPTABLE with the version and media types it serves', async () => {
    for (const path of ['/api/v1/posts', `/api/v1/posts/${post}`]) {
      const problem = await problemOf(path, 'application/vnd.app.v2+json');
      assert.equal(problem.code, 'APP_VERSION_NOT_ACCEPTABLE');
      assert.deepEqual(problem.data, {
        version: 'v1',
        requested: 'v2',
        mediaTypes: ['application/vnd.app.v1+json', 'application/hal+json', 'application/json'],
      });
    }
  });

  it("an Accept admitting none of what ctx.negotiate answers is APP_NOT_ACCEPTABLE listing the handlers' media types", async () => {
    const problem = await problemOf(`/api/v1/posts/${post}`, 'image/png');
    assert.equal(problem.code, 'APP_NOT_ACCEPTABLE');
    assert.deepEqual(problem.data, { accept: 'image/png', mediaTypes: JSON_TYPES });
  });

  it('a page (ctx.render) answers HTML or its page object: an Accept of neither is APP_NOT_ACCEPTABLE listing both', async () => {
    const problem = await problemOf('/api/v1/posts', 'image/png');
    assert.equal(problem.code, 'APP_NOT_ACCEPTABLE');
    assert.deepEqual(problem.data.mediaTypes, ['text/html', ...JSON_TYPES]);
  });

  it('the GraphQL path, asked for neither of its media types, is APP_NOT_ACCEPTABLE listing them', async () => {
    const problem = await problemOf('/_app/gql?query=%7B__typename%7D', 'application/xml');
    assert.equal(problem.code, 'APP_NOT_ACCEPTABLE');
    assert.deepEqual(problem.data, {
      accept: 'application/xml',
      mediaTypes: ['application/graphql-response+json', 'application/json'],
    });
  });
});
