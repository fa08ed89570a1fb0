import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decide } from '../../../../api/model-framework/routing/roles.ts';
import { compileRoutes, RouteTableError } from '../../../../api/model-framework/routing/table.ts';

describe('route table', () => {
  it('resources <name> mounts the seven actions under the scope; /new comes before /:externalId', () => {
    const { routes, resources } = compileRoutes({ 'resources posts': { scope: 'api/v1' } });
    const table = routes.map((route) => `${route.action} ${route.method} ${route.path}`);
    assert.deepEqual(table, [
      'index GET /api/v1/posts',
      'new GET /api/v1/posts/new',
      'create POST /api/v1/posts',
      'show GET /api/v1/posts/:externalId',
      'edit GET /api/v1/posts/:externalId/edit',
      'update PATCH /api/v1/posts/:externalId',
      'destroy DELETE /api/v1/posts/:externalId',
    ]);
    const posts = resources.get('posts');
    assert.equal(posts?.item('abc'), '/api/v1/posts/abc');
    assert.equal(posts?.edit('abc'), '/api/v1/posts/abc/edit');
    assert.equal(posts?.newForm, '/api/v1/posts/new');
  });

  it('crud <name> has no new or edit forms', () => {
    const { routes, resources } = compileRoutes({ 'crud authors': {} });
    assert.deepEqual(routes.map((route) => route.action).sort(), ['create', 'destroy', 'index', 'show', 'update']);
    assert.equal(resources.get('authors')?.actions.has('edit'), false);
    assert.equal(routes[0].path.startsWith('/authors'), true, 'no scope, no prefix');
  });

  it('a single "GET /path" key names its controller action; mutating routes are idempotent unless opted out', () => {
    const { routes } = compileRoutes({
      'GET /status': { controller: 'status.show', scope: '/api/' },
      'POST /jobs': { controller: 'jobs.create' },
      'POST /hooks': { controller: 'hooks.create', idempotent: false },
      'POST /login': { controller: 'session.create' },
    });
    const byKey = new Map(routes.map((route) => [route.key, route]));
    assert.deepEqual(
      [byKey.get('GET /status')?.path, byKey.get('GET /status')?.controller, byKey.get('GET /status')?.action],
      ['/api/status', 'status', 'show'],
    );
    assert.equal(byKey.get('GET /status')?.idempotent, false);
    assert.equal(byKey.get('POST /jobs')?.idempotent, true);
    assert.equal(byKey.get('POST /hooks')?.idempotent, false);
    assert.equal(byKey.get('POST /login')?.idempotent, false, '/login is never covered by idempotency');
  });

  it('every problem of a table is listed at once', () => {
    assert.throws(
      () =>
        compileRoutes({
          'resource posts': {},
          'crud authors': {
            version: '1',
            rateLimit: { windowMs: 0, max: 1 },
            roles: 'admin' as never,
            colour: 'red',
          } as never,
          'GET /x': { controller: 'nope' },
        }),
      (error: unknown) => {
        assert.ok(error instanceof RouteTableError);
        assert.equal(error.problems.length, 6, error.message);
        assert.match(error.message, /resource posts: a route key is/);
        assert.match(error.message, /unknown option "colour"/);
        assert.match(error.message, /version must look like v1/);
        assert.match(error.message, /controller must name/);
        return true;
      },
    );
  });

  it('a roles map key naming no action of its route stops the boot, so a misspelt action is not left open', () => {
    assert.throws(
      () =>
        compileRoutes({
          'crud notes': { roles: { default: ['*'], destory: ['admin'], edit: ['admin'] } },
          'POST /notes/:externalId/send': { controller: 'notes.send', roles: { sned: ['admin'] } },
        }),
      (error: unknown) => {
        assert.ok(error instanceof RouteTableError);
        assert.deepEqual(error.problems, [
          'crud notes: roles.destory names no action of this route (index, create, show, update, destroy, default)',
          'crud notes: roles.edit names no action of this route (index, create, show, update, destroy, default)',
          'POST /notes/:externalId/send: roles.sned names no action of this route (send, default)',
        ]);
        return true;
      },
    );
    const { routes } = compileRoutes({
      'resources posts': { roles: { default: ['*'], destroy: ['admin'], edit: ['admin'] } },
      'POST /posts/:externalId/send': { controller: 'posts.send', roles: { send: ['admin'] } },
    });
    assert.equal(routes.length, 8, 'the actions of the route and default are accepted');
  });

  it("a route's operation is one of the permission table's, per action for a resource", () => {
    const { routes } = compileRoutes({
      'crud notes': { roles: ['admin'], operation: { create: 'endpoints.register' } },
      'POST /notes/:externalId/send': { controller: 'notes.send', roles: ['admin'], operation: 'endpoints.send' },
    });
    const operationOf = (action: string) => routes.find((route) => route.action === action)?.operation;
    assert.equal(operationOf('create'), 'endpoints.register');
    assert.equal(operationOf('index'), undefined);
    assert.equal(operationOf('send'), 'endpoints.send');
    assert.throws(
      () => compileRoutes({ 'POST /x': { controller: 'x.y', operation: 'notes.fly' as never } }),
      /operation "notes.fly" is not one of the permission table's/,
    );
  });
});

describe('role rules', () => {
  const admin = { id: '1', roles: ['admin'] };
  const member = { id: '2', roles: [] };
  for (const [rule, action, principal, expected] of [
    [undefined, 'destroy', undefined, 'allow'],
    [['admin'], 'index', undefined, 'unauthenticated'],
    [['admin'], 'index', member, 'forbidden'],
    [['admin'], 'index', admin, 'allow'],
    [['*'], 'index', member, 'allow'],
    [{ destroy: ['admin'] }, 'show', undefined, 'allow'],
    [{ destroy: ['admin'] }, 'destroy', member, 'forbidden'],
    [{ default: ['*'], index: [] as string[] }, 'index', undefined, 'unauthenticated'],
    [{ default: ['*'] }, 'update', undefined, 'unauthenticated'],
    [{ default: ['*'], destroy: ['admin'] }, 'destroy', admin, 'allow'],
  ] as const) {
    it(`${JSON.stringify(rule)} for ${action} by ${principal ? `[${principal.roles}]` : 'nobody'}: ${expected}`, () => {
      assert.equal(decide(rule as never, action, principal), expected);
    });
  }
});
