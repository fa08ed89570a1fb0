import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { halProblem } from '../../../api/middleware/hal-guard.ts';
import { defineController } from '../../../api/model-framework/routing/controller.ts';
import { seed, startApp, type TestApp } from '../fixtures/app.ts';

/** posts answers plain JSON from index, a collection from show, and HTML from new. */
const posts = defineController({
  index(ctx) {
    ctx.body = { posts: [] };
  },
  async show(ctx) {
    await ctx.collection([], { page: 1, perPage: 25, total: 0 });
  },
  new(ctx) {
    ctx.type = 'html';
    ctx.body = '<form></form>';
  },
});

const warnings = (app: TestApp) =>
  app.logs.filter((line) => line.level === 40 && String(line.msg).startsWith('resource route answered JSON'));

describe('HAL guard', () => {
  let lenient: TestApp;
  let strict: TestApp;
  let post: string;
  before(async () => {
    lenient = await startApp({ controllers: { posts } });
    strict = await startApp({ controllers: { posts }, flags: { api: { strict: true } } });
    ({
      posts: [post],
    } = await seed(lenient, { authors: 1, posts: 1 }));
  });

  it('a resources route answering JSON without _links is served but logged once per route', async () => {
    for (let i = 0; i < 3; i += 1) assert.equal((await fetch(`${lenient.api}/posts`)).status, 200);
    const logged = warnings(lenient).filter((line) => line.route === 'GET /api/v1/posts');
    assert.equal(logged.length, 1);
    assert.match(String(logged[0].msg), /without _links/);
  });

  it('with config.api.strict the same answer is refused with 500 and no detail', async () => {
    const response = await fetch(`${strict.api}/posts`);
    assert.equal(response.status, 500);
    const problem = (await response.json()) as { detail: string; code?: string };
    assert.equal(problem.detail, 'Internal Server Error');
    assert.equal(problem.code, undefined);
  });

  it('with config.api.strict an answer contrary to the action (a collection from show) is refused with 500', async () => {
    assert.equal((await fetch(`${strict.api}/posts/${post}`)).status, 500);
    assert.equal((await fetch(`${lenient.api}/posts/${post}`)).status, 200, 'only logged when not strict');
  });

  it('non-JSON answers (an HTML form) and answers from the generic controller pass', async () => {
    const form = await fetch(`${strict.api}/posts/new`);
    assert.equal(form.status, 200);
    assert.equal(await form.text(), '<form></form>');
    assert.equal((await fetch(`${strict.api}/authors`)).status, 200);
    assert.equal(
      (await fetch(`${strict.api}/posts/${post}/edit`, { headers: { 'X-Test-Principal': 'u;editor' } })).status,
      200,
    );
  });

  it('a client-side page visit (X-Inertia) is never checked', async () => {
    assert.equal((await fetch(`${strict.api}/posts`, { headers: { 'X-Inertia': 'true' } })).status, 200);
    assert.equal((await fetch(`${strict.api}/posts`, { headers: { 'X-App-Page': 'true' } })).status, 200);
  });

  it('halProblem names what is wrong', () => {
    assert.equal(halProblem('index', { items: [] }, undefined), 'without _links');
    assert.equal(halProblem('index', [], undefined), 'without _links');
    assert.equal(
      halProblem('show', { _links: {}, _embedded: {}, total: 0 }, undefined),
      'a collection where show declares a resource',
    );
    assert.equal(halProblem('index', { _links: {} }, 'resource'), 'a resource where index declares a collection');
    assert.equal(halProblem('show', { _links: {} }, 'resource'), undefined);
  });
});
