import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { APP_SLOTS, ROUTE_SLOTS } from '../../api/pipeline.ts';
import type { CompiledRoute } from '../../api/model-framework/routing/table.ts';
import { startApp, type TestApp } from './fixtures/app.ts';

describe('middleware order', () => {
  it('the application slots follow the documented middleware order (Koa onion: the error handler wraps, 404 wraps the router)', () => {
    assert.deepEqual(APP_SLOTS, [
      'requestId',
      'errors',
      'timeout',
      'secureHeaders',
      'compression',
      'jsonAnswers',
      'cors',
      'bodyParsers',
      'cookies',
      'errorHelpers',
      'apiVersion',
      'pagination',
      'health',
      'static',
      'user',
      'authLimiter',
      'globalLimiter',
      'custom',
      'notFound',
      'graphql',
      'router',
    ]);
    assert.deepEqual(ROUTE_SLOTS, ['versionGuard', 'routeLimiter', 'roleGuard', 'idempotency', 'halGuard']);
  });

  it('the server mounts one middleware per slot, named after it, in that order', async () => {
    const app = await startApp();
    assert.deepEqual(
      app.web.app.middleware.map((middleware) => middleware.name),
      [...APP_SLOTS],
    );
  });
});

describe('plugging into slots', () => {
  let app: TestApp;
  const seen: string[] = [];
  const routesSeen: CompiledRoute[] = [];
  before(async () => {
    app = await startApp({
      routes: {
        'resources posts': { scope: 'api/v1', rateLimit: { windowMs: 1000, max: 5 }, roles: { destroy: ['admin'] } },
        'crud authors': { scope: 'api/v1' },
      },
      setup(web) {
        web.plug('globalLimiter', async (ctx, next) => {
          seen.push(`globalLimiter principal=${ctx.state.principal?.id ?? '-'}`);
          await next();
        });
        web.plug('authLimiter', async (_ctx, next) => {
          seen.push('authLimiter');
          await next();
        });
        web.addMiddleware(async (_ctx, next) => {
          seen.push('custom');
          await next();
        });
        web.plugRoute('routeLimiter', (route) => {
          routesSeen.push(route);
          if (!route.rateLimit) return undefined;
          return async (ctx, next) => {
            seen.push(`routeLimiter ${route.action} max=${route.rateLimit?.max}`);
            ctx.set('RateLimit-Policy', `${route.rateLimit?.max};w=1`);
            await next();
          };
        });
        web.plugRoute('idempotency', (route) =>
          route.idempotent
            ? async (ctx, next) => {
                seen.push(`idempotency ${route.action} principal=${ctx.state.principal?.id ?? '-'}`);
                await next();
              }
            : undefined,
        );
      },
    });
  });

  it('app slots run in order: user (principal) before the limiters, custom before the router', async () => {
    seen.length = 0;
    await fetch(`${app.api}/authors`, { headers: { 'X-Test-Principal': 'p1;' } });
    assert.deepEqual(seen, ['authLimiter', 'globalLimiter principal=p1', 'custom']);
  });

  it("route slots get each route's declaration: the route limiter runs before the role guard, idempotency after it", async () => {
    seen.length = 0;
    const refused = await fetch(`${app.api}/posts/AAAAAAAAAAAAAAAAAAAAAA`, { method: 'DELETE' });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('ratelimit-policy'), '5;w=1');
    assert.deepEqual(seen.slice(3), ['routeLimiter destroy max=5'], 'refused by the role guard before idempotency');

    seen.length = 0;
    const created = await fetch(`${app.api}/posts`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Test-Principal': 'p2;' },
      body: JSON.stringify({ title: 'slots' }),
    });
    assert.equal(created.status, 201);
    assert.deepEqual(seen.slice(3), ['routeLimiter create max=5', 'idempotency create principal=p2']);

    seen.length = 0;
    await fetch(`${app.api}/authors`);
    assert.deepEqual(seen.slice(3), [], 'authors has no rateLimit and GET is not idempotent-covered');
    assert.ok(
      routesSeen.some(
        (route) =>
          route.name === 'posts' && route.action === 'create' && route.idempotent && route.rateLimit?.windowMs === 1000,
      ),
    );
  });

  it('an unknown slot name is refused', () => {
    assert.throws(() => app.web.plug('session' as never, async () => {}), /unknown middleware slot "session"/);
    assert.throws(() => app.web.plugRoute('auth' as never, () => undefined), /unknown route slot "auth"/);
  });
});
