import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelDeclaration } from '../../../api/model-framework/data/types.ts';
import { unprocessable } from '../../../shared/errors/app-error.ts';
import { storeUnavailable } from '../../../shared/webhooks/endpoint-stores/guard.ts';
import { Author } from '../fixtures/models.ts';
import { post, startGraphqlApp } from './fixtures.ts';

/** Resolvers failing the three ways a resolver can. */
const FAILING: ModelDeclaration = {
  ...Author,
  graphql: {
    types: 'type Query { bug: String refused: String nonNull: String! ok: String }',
    resolvers: {
      Query: {
        bug: () => {
          throw new Error('connection to 10.0.0.7 refused: password authentication failed');
        },
        refused: () => {
          throw unprocessable('the title is too long', { code: 'APP_VALIDATION_FAILED', data: { field: 'title' } });
        },
        nonNull: () => null,
        ok: () => 'fine',
      },
    },
  },
};

const start = (env: string) => startGraphqlApp({ env, models: [FAILING], routes: {} });

describe('masked errors: internal failures never reach a client outside development', () => {
  it('production: a thrown Error becomes "Unexpected error." with the request id; the log keeps the real one', async () => {
    const app = await start('production');
    const answer = await post(app, '{ bug ok }', { headers: { 'X-Request-Id': 'req-mask-1' } });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body.data, { bug: null, ok: 'fine' });
    const [error] = answer.body.errors ?? [];
    assert.equal(error.message, 'Unexpected error.');
    assert.deepEqual(error.extensions, { code: 'APP_GRAPHQL_INTERNAL', requestId: 'req-mask-1' });
    assert.deepEqual(error.path, ['bug']);
    assert.doesNotMatch(JSON.stringify(answer.body), /10\.0\.0\.7|password/);
    assert.ok(
      app.logs.some((line) => line.msg === 'graphql field failed' && /10\.0\.0\.7/.test(JSON.stringify(line.err))),
    );
  });

  it('production: a null for a non-null field (a server bug) is masked too', async () => {
    const app = await start('production');
    const answer = await post(app, '{ nonNull }');
    assert.equal(answer.body.data, null);
    assert.equal(answer.body.errors?.[0]?.message, 'Unexpected error.');
  });

  it('refusals keep their message and carry code, status and data (AppError below 500)', async () => {
    const app = await start('production');
    const answer = await post(app, '{ refused }');
    assert.deepEqual(answer.body.errors?.[0]?.extensions, {
      code: 'APP_VALIDATION_FAILED',
      status: 422,
      data: { field: 'title' },
    });
    assert.equal(answer.body.errors?.[0]?.message, 'the title is too long');
  });

  it("GraphQL's own errors (syntax, validation) are never masked", async () => {
    const app = await start('production');
    const answer = await post(app, '{ nosuchfield }');
    assert.match(answer.body.errors?.[0]?.message ?? '', /Cannot query field "nosuchfield"/);
  });

  it('development: the real message is shown, with the code and the request id', async () => {
    const app = await start('development');
    const answer = await post(app, '{ bug }', { headers: { 'X-Request-Id': 'req-dev-1' } });
    assert.match(answer.body.errors?.[0]?.message ?? '', /password authentication failed/);
    assert.deepEqual(answer.body.errors?.[0]?.extensions, { code: 'APP_GRAPHQL_INTERNAL', requestId: 'req-dev-1' });
  });
});

describe('masked errors: a database that cannot be reached', () => {
  it('a field whose query cannot reach the database carries APP_DATABASE_UNAVAILABLE, not APP_GRAPHQL_INTERNAL', async () => {
    const UNREACHABLE: ModelDeclaration = {
      ...Author,
      graphql: {
        types: 'type Query { down: String }',
        resolvers: {
          Query: {
            down: () => {
              throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5432'), { code: 'ECONNREFUSED' });
            },
          },
        },
      },
    };
    const app = await startGraphqlApp({ env: 'production', models: [UNREACHABLE], routes: {} });
    const answer = await post(app, '{ down }');
    const [error] = (answer.body as { errors: { message: string; extensions: { code: string; status: number } }[] })
      .errors;
    assert.equal(error.extensions.code, 'APP_DATABASE_UNAVAILABLE');
    assert.equal(error.extensions.status, 503);
    assert.doesNotMatch(error.message, /10\.0\.0\.7/, 'nothing of the connection leaks');
  });

  it('a field whose endpoint store cannot be reached carries APP_STORE_UNAVAILABLE naming the store', async () => {
    const STORE_AWAY: ModelDeclaration = {
      ...Author,
      graphql: {
        types: 'type Query { away: String }',
        resolvers: {
          Query: {
            away: () => {
              throw storeUnavailable(
                { name: 'registry', adapter: 'mysql' },
                Object.assign(new Error('connect ECONNREFUSED 10.0.0.8:3306'), { code: 'ECONNREFUSED' }),
              );
            },
          },
        },
      },
    };
    const app = await startGraphqlApp({ env: 'production', models: [STORE_AWAY], routes: {} });
    const answer = await post(app, '{ away }');
    const [error] = (
      answer.body as {
        errors: { message: string; extensions: { code: string; status: number; data: Record<string, unknown> } }[];
      }
    ).errors;
    assert.equal(error.extensions.code, 'APP_STORE_UNAVAILABLE');
    assert.equal(error.extensions.status, 503);
    assert.equal(error.message, 'endpoint store "registry" (mysql) did not answer');
    assert.deepEqual(error.extensions.data, { store: 'registry', adapter: 'mysql', retryAfter: 5 });
    assert.doesNotMatch(JSON.stringify(answer.body), /10\.0\.0\.8/, 'nothing of the connection leaks');
  });
});

describe('masked errors: a database behind the code', () => {
  it('a field whose table the database lacks carries APP_DATABASE_NOT_MIGRATED and says to run app migrate; the log keeps it as a failure', async () => {
    let query: (() => Promise<unknown>) | undefined;
    const BEHIND: ModelDeclaration = {
      ...Author,
      graphql: {
        types: 'type Query { behind: String }',
        resolvers: {
          Query: {
            behind: async () => {
              await query?.();
              return 'unreachable';
            },
          },
        },
      },
    };
    const app = await startGraphqlApp({ env: 'production', models: [BEHIND], routes: {} });
    // the real server's error for a table of the service's it does not have
    query = () => app.db.sql`select 1 from app_table_of_a_later_migration`;
    const answer = await post(app, '{ behind }');
    const [error] = (answer.body as { errors: { message: string; extensions: { code: string; status: number } }[] })
      .errors;
    assert.equal(error.extensions.code, 'APP_DATABASE_NOT_MIGRATED');
    assert.equal(error.extensions.status, 503);
    assert.match(error.message, /app migrate/);
    assert.ok(app.logs.some((line) => line.msg === 'graphql field failed' && line.level === 50));
  });
});
