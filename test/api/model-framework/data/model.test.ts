import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Model } from '../../../../api/model-framework/data/model.ts';
import { seed, startApp } from '../../fixtures/app.ts';

describe('Model.paginate', () => {
  let Post: Model;
  before(async () => {
    const app = await startApp();
    await seed(app, { authors: 1, posts: 3 });
    Post = app.web.api?.models.get('Post') as Model;
  });

  it('a page or page size that is not a whole number of at least 1 is 400 APP_PAGINATION_INVALID, naming it', async () => {
    const cases: Array<[{ page: number; perPage: number }, string]> = [
      [{ page: 1, perPage: -1 }, 'perPage'],
      [{ page: 1, perPage: 0 }, 'perPage'],
      [{ page: 1, perPage: 2.5 }, 'perPage'],
      [{ page: 0, perPage: 10 }, 'page'],
      [{ page: -3, perPage: 10 }, 'page'],
      [{ page: Number.NaN, perPage: 10 }, 'page'],
      [{ page: Number.MAX_SAFE_INTEGER, perPage: 100 }, 'page'],
    ];
    for (const [paging, parameter] of cases) {
      await assert.rejects(Post.paginate(paging), (error: { status: number; code: string; data: object }) => {
        assert.equal(error.status, 400, JSON.stringify(paging));
        assert.equal(error.code, 'APP_PAGINATION_INVALID');
        assert.equal((error.data as { parameter: string }).parameter, parameter, JSON.stringify(paging));
        return true;
      });
    }
  });

  it('whole numbers of at least 1 page as before, a page past the end empty', async () => {
    const page = await Post.paginate({ page: 2, perPage: 2 });
    assert.deepEqual([page.records.length, page.total, page.pages], [1, 3, 2]);
    assert.equal((await Post.paginate({ page: 9, perPage: 2 })).records.length, 0);
  });
});
