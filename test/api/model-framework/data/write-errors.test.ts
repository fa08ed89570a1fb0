/**
 * A model write the database refuses is answered in the model's words: the error's data names
 * the field as the client sent it (`publishedAt`), never its column (`published_at`).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { DATE, defineModel, INTEGER, STRING } from '../../../../api/model-framework/data/types.ts';
import { ROUTES, send, startApp, testDatabase, type TestApp } from '../../fixtures/app.ts';
import { MODELS } from '../../fixtures/models.ts';

/** Fields whose columns are named otherwise, on columns stricter than the fields. */
const Schedule = defineModel({
  name: 'Schedule',
  table: 'fixture_schedules',
  schema: {
    publishedAt: { type: DATE },
    slug: { type: STRING, column: 'slug_text' },
    // declared wider than its `integer` column: the database's range error is the one left
    hits: { type: INTEGER, column: 'hit_count', min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER },
  },
});

describe('errors of a model write', () => {
  let app: TestApp;
  before(async () => {
    const db = await testDatabase();
    await db.sql`create table fixture_schedules (
      id bigint generated always as identity primary key,
      external_id text not null unique,
      published_at timestamptz not null default now(),
      slug_text text unique,
      hit_count integer)`;
    app = await startApp({
      models: [...MODELS, Schedule],
      routes: { ...ROUTES, 'crud schedules': { scope: 'api/v1' } },
    });
  });

  it('null written to a not-null column is 422 APP_VALUE_REQUIRED naming the field, not the column', async () => {
    const answer = await send('POST', `${app.api}/schedules`, { publishedAt: null });
    assert.equal(answer.status, 422, JSON.stringify(answer.body));
    assert.equal(answer.body.code, 'APP_VALUE_REQUIRED');
    assert.equal(answer.body.data.field, 'publishedAt');
    assert.equal(answer.body.data.model, 'Schedule');
    assert.match(answer.body.detail, /: publishedAt$/);
    assert.doesNotMatch(JSON.stringify(answer.body), /published_at/);

    const made = await send('POST', `${app.api}/schedules`, {});
    assert.equal(made.status, 201);
    const update = await send('PATCH', `${app.api}/schedules/${made.body.externalId}`, { publishedAt: null });
    assert.equal(update.status, 422);
    assert.equal(update.body.data.field, 'publishedAt');
  });

  it('a unique value taken is 409 APP_CONFLICT naming the field', async () => {
    assert.equal((await send('POST', `${app.api}/schedules`, { slug: 'weekly' })).status, 201);
    const again = await send('POST', `${app.api}/schedules`, { slug: 'weekly' });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'APP_CONFLICT');
    assert.equal(again.body.data.field, 'slug');
    assert.doesNotMatch(JSON.stringify(again.body.data), /slug_text/);
  });

  it('an INTEGER outside its declared range is 422 APP_VALIDATION_FAILED naming the field, before any write', async () => {
    for (const views of [2_147_483_648, -2_147_483_649, 3_000_000_000]) {
      const answer = await send('POST', `${app.api}/posts`, { title: 'Popular', views });
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.equal(answer.body.code, 'APP_VALIDATION_FAILED');
      assert.deepEqual(answer.body.data.errors, [
        { field: 'views', message: 'must be between -2147483648 and 2147483647' },
      ]);
    }
    assert.equal((await send('POST', `${app.api}/posts`, { title: 'Edge', views: 2_147_483_647 })).status, 201);
  });

  it('a range wider than its column leaves the database to refuse: still 422 APP_VALUE_OUT_OF_RANGE, with the model', async () => {
    const answer = await send('POST', `${app.api}/schedules`, { hits: 3_000_000_000 });
    assert.equal(answer.status, 422, JSON.stringify(answer.body));
    assert.equal(answer.body.code, 'APP_VALUE_OUT_OF_RANGE');
    assert.equal(answer.body.data.model, 'Schedule');
  });
});
