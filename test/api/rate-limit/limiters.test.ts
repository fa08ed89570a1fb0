/**
 * The three limiters (429 `APP_API_RATE_LIMITED`): global, authentication, per route; the draft-7
 * headers (parsed as RFC 8941 structured fields by the structured-headers library), keys per user or per ip, X-Forwarded-For only
 * with trustProxy, the development exemption, `rateLimit: false` and `auth: false`, the boot line.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RATE_LIMITED } from '../../../api/rate-limit/errors.ts';
import { request, startGuardedApp, type Answer } from '../idempotency/guarded-app.ts';
import { parseDictionary, parseList, type Item } from 'structured-headers';

/** The draft-7 fields of an answer, parsed strictly. */
function limitFields(answer: Answer) {
  const field = answer.headers.get('ratelimit');
  const policy = answer.headers.get('ratelimit-policy');
  assert.ok(field && policy, `RateLimit and RateLimit-Policy on a ${answer.status}`);
  const dict = parseDictionary(field);
  assert.deepEqual([...dict.keys()], ['limit', 'remaining', 'reset']);
  const value = (name: string) => {
    const [member] = dict.get(name) as Item;
    assert.ok(Number.isInteger(member), `${name} is an Integer`);
    return member as number;
  };
  const [quota, ...more] = parseList(policy);
  assert.equal(more.length, 0);
  const [max, params] = quota as Item;
  assert.ok(Number.isInteger(max));
  assert.ok(Number.isInteger(params.get('w')), 'w is an Integer (seconds)');
  return {
    limit: value('limit'),
    remaining: value('remaining'),
    reset: value('reset'),
    quota: max as number,
    w: params.get('w') as number,
  };
}

function assertRefused(answer: Answer, limit: number, windowMs: number) {
  assert.equal(answer.status, RATE_LIMITED.status, answer.text);
  assert.equal(answer.headers.get('content-type'), 'application/problem+json');
  assert.equal(answer.body.code, RATE_LIMITED.code);
  const retryAfter = Number(answer.headers.get('retry-after'));
  assert.ok(
    Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowMs / 1000,
    `Retry-After ${retryAfter}`,
  );
  assert.deepEqual(answer.body.data, { limit, retryAfter, windowMs });
  const fields = limitFields(answer);
  assert.equal(fields.limit, limit);
  assert.equal(fields.remaining, 0);
}

const get = (url: string, headers: Record<string, string> = {}) => request('GET', url, { headers });
const post = (url: string, headers: Record<string, string> = {}) => request('POST', url, { body: {}, headers });

describe('global limiter', () => {
  it('allows rateLimit.max requests per window with draft-7 RateLimit headers, then 429 APP_API_RATE_LIMITED', async () => {
    const app = await startGuardedApp({ flags: { rateLimit: { max: 5, windowMs: '1m' } } });
    for (let i = 1; i <= 5; i += 1) {
      const answer = await get(`${app.base}/orders`);
      assert.equal(answer.status, 200);
      const fields = limitFields(answer);
      assert.deepEqual([fields.limit, fields.remaining, fields.quota, fields.w], [5, 5 - i, 5, 60]);
      assert.ok(fields.reset > 0 && fields.reset <= 60);
    }
    assertRefused(await get(`${app.base}/orders`), 5, 60_000);
    assert.equal((await get(`${app.base}/readyz`)).status, 200, 'health endpoints run before the limiters');
  });

  it('counts per user id when authenticated, per ip otherwise', async () => {
    const app = await startGuardedApp({ flags: { rateLimit: { max: 2 } } });
    const alice = { 'X-Test-Principal': 'alice' };
    assert.equal((await get(`${app.base}/orders`, alice)).status, 200);
    assert.equal((await get(`${app.base}/orders`, alice)).status, 200);
    assertRefused(await get(`${app.base}/orders`, alice), 2, 60_000);
    assert.equal((await get(`${app.base}/orders`, { 'X-Test-Principal': 'bob' })).status, 200, 'another user, same ip');
    assert.equal((await get(`${app.base}/orders`)).status, 200, 'anonymous: counted per ip, apart from the users');
    assert.equal((await get(`${app.base}/orders`)).status, 200);
    assert.equal((await get(`${app.base}/orders`)).status, 429);
  });

  it("ignores X-Forwarded-For without trustProxy (every client is the proxy's ip)", async () => {
    const app = await startGuardedApp({ flags: { rateLimit: { max: 2 }, trustProxy: false } });
    assert.equal((await get(`${app.base}/orders`, { 'X-Forwarded-For': '203.0.113.1' })).status, 200);
    assert.equal((await get(`${app.base}/orders`, { 'X-Forwarded-For': '203.0.113.2' })).status, 200);
    assert.equal((await get(`${app.base}/orders`, { 'X-Forwarded-For': '203.0.113.3' })).status, 429);
  });

  it('counts per X-Forwarded-For client with trustProxy', async () => {
    const app = await startGuardedApp({ flags: { rateLimit: { max: 2 }, trustProxy: true } });
    for (const client of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      assert.equal((await get(`${app.base}/orders`, { 'X-Forwarded-For': client })).status, 200);
      assert.equal((await get(`${app.base}/orders`, { 'X-Forwarded-For': client })).status, 200);
      assert.equal((await get(`${app.base}/orders`, { 'X-Forwarded-For': client })).status, 429, client);
    }
  });

  it("with trustProxy, the client's ip is the one the proxy appended: what a client writes in X-Forwarded-For itself is not taken", async () => {
    const app = await startGuardedApp({ flags: { rateLimit: { max: 2 }, trustProxy: true } });
    // a proxy appends the address it saw; the client made up the entries before it
    for (const madeUp of ['198.51.100.1', '198.51.100.2', '198.51.100.3'])
      assert.equal(
        (await get(`${app.base}/orders`, { 'X-Forwarded-For': `${madeUp}, 203.0.113.9` })).status,
        madeUp === '198.51.100.3' ? 429 : 200,
        madeUp,
      );
    const twoHops = await startGuardedApp({ flags: { rateLimit: { max: 2 }, trustProxy: true, proxyHops: 2 } });
    for (const client of ['203.0.113.1', '203.0.113.2']) {
      const through = { 'X-Forwarded-For': `198.51.100.7, ${client}, 192.0.2.1` };
      assert.equal((await get(`${twoHops.base}/orders`, through)).status, 200);
      assert.equal((await get(`${twoHops.base}/orders`, through)).status, 200);
      assert.equal((await get(`${twoHops.base}/orders`, through)).status, 429, client);
    }
  });

  it('is not enforced in development (no count, no headers); enforced there with enforceInDevelopment', async () => {
    const dev = await startGuardedApp({ flags: { env: 'development', rateLimit: { max: 2 } } });
    for (let i = 0; i < 5; i += 1) {
      const answer = await get(`${dev.base}/orders`);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('ratelimit'), null);
    }
    const enforced = await startGuardedApp({
      flags: { env: 'development', rateLimit: { max: 2, enforceInDevelopment: true } },
    });
    await get(`${enforced.base}/orders`);
    await get(`${enforced.base}/orders`);
    assert.equal((await get(`${enforced.base}/orders`)).status, 429);
  });

  it('is enforced in production', async () => {
    const app = await startGuardedApp({ flags: { env: 'production', rateLimit: { max: 1 } } });
    await get(`${app.base}/orders`);
    assert.equal((await get(`${app.base}/orders`)).status, 429);
  });
});

describe('authentication limiter', () => {
  it('allows auth.max POST per window per ip on /login, then 429; other paths and methods are not counted by it', async () => {
    const app = await startGuardedApp({ flags: { rateLimit: { auth: { max: 3 } } } });
    for (let i = 1; i <= 3; i += 1) {
      const answer = await post(`${app.base}/login`, { 'X-Test-Principal': `user-${i}` });
      assert.equal(answer.status, 200);
      assert.equal(limitFields(answer).remaining, 3 - i, 'the tighter limit is shown');
    }
    assertRefused(await post(`${app.base}/login`, { 'X-Test-Principal': 'someone-else' }), 3, 60_000);
    assert.equal((await post(`${app.base}/orders`)).status, 201);
    assert.equal((await get(`${app.base}/login`)).status, 200, 'GET /login (the sign-in page) is not counted');
  });

  it('counts every spelling of a path the router answers (case, trailing slash) as that path', async () => {
    const app = await startGuardedApp({ flags: { rateLimit: { auth: { max: 2 } } } });
    await post(`${app.base}/login`);
    await post(`${app.base}/LOGIN`);
    assertRefused(await post(`${app.base}/Login/`), 2, 60_000);
  });

  /** What a browser's anonymous form carries: the app_csrf cookie and a token made from it (the CSRF check runs before the limiters). */
  async function formCredentials(base: string): Promise<Record<string, string>> {
    const page = await fetch(`${base}/forgot-password`, { headers: { accept: 'application/json' } });
    const cookie = page.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    return { cookie, 'x-csrf-token': ((await page.json()) as { csrfToken: string }).csrfToken };
  }

  for (const path of ['/register', '/signup', '/confirm-signup', '/password', '/forgot-password', '/reset-password']) {
    it(`covers POST ${path} by default`, async () => {
      const app = await startGuardedApp({ flags: { rateLimit: { auth: { max: 1 } } } });
      const headers = await formCredentials(app.base);
      await post(`${app.base}${path}`, headers);
      assertRefused(await post(`${app.base}${path}`, headers), 1, 60_000);
    });
  }

  it('auth.paths replaces the list', async () => {
    const app = await startGuardedApp({ flags: { rateLimit: { auth: { max: 1, paths: ['/orders'] } } } });
    assert.equal((await post(`${app.base}/orders`)).status, 201);
    assertRefused(await post(`${app.base}/orders`), 1, 60_000);
    assert.equal((await post(`${app.base}/login`)).status, 200);
    assert.equal((await post(`${app.base}/login`)).status, 200);
  });

  it('is enforced in development too', async () => {
    const app = await startGuardedApp({ flags: { env: 'development', rateLimit: { auth: { max: 1 } } } });
    await post(`${app.base}/login`);
    assert.equal((await post(`${app.base}/login`)).status, 429);
  });

  it('auth: false turns off only the authentication limiter', async () => {
    const app = await startGuardedApp({ flags: { rateLimit: { max: 4, auth: false } } });
    for (let i = 0; i < 4; i += 1) assert.equal((await post(`${app.base}/login`)).status, 200);
    assertRefused(await post(`${app.base}/login`), 4, 60_000);
  });
});

describe('route limiter', () => {
  it("enforces a route's rateLimit {windowMs, max}, shows it as the tighter limit, leaves other routes alone", async () => {
    const app = await startGuardedApp();
    for (let i = 1; i <= 3; i += 1) {
      const answer = await post(`${app.base}/limited`);
      assert.equal(answer.status, 201);
      const fields = limitFields(answer);
      assert.deepEqual([fields.limit, fields.remaining, fields.quota, fields.w], [3, 3 - i, 3, 60]);
    }
    assertRefused(await post(`${app.base}/limited`), 3, 60_000);
    const other = await post(`${app.base}/orders`);
    assert.equal(other.status, 201);
    assert.equal(limitFields(other).limit, 600, 'the global limit on other routes');
  });

  it('is always enforced, in development too', async () => {
    const app = await startGuardedApp({ flags: { env: 'development' } });
    for (let i = 0; i < 3; i += 1) await post(`${app.base}/limited`);
    assertRefused(await post(`${app.base}/limited`), 3, 60_000);
  });
});

describe('rateLimit: false', () => {
  it('disables every limiter: no counts, no headers', async () => {
    const app = await startGuardedApp({ flags: { rateLimit: false } });
    for (let i = 0; i < 12; i += 1) {
      const answer = await post(`${app.base}/limited`);
      assert.equal(answer.status, 201);
      assert.equal(answer.headers.get('ratelimit'), null);
    }
    for (let i = 0; i < 12; i += 1) assert.equal((await post(`${app.base}/login`)).status, 200);
  });
});

describe('the boot line and warnings', () => {
  it('says the limit and where it is counted (this process without a shared backend)', async () => {
    const app = await startGuardedApp();
    assert.ok(
      app.logs.some(
        (line) => line.msg === 'api rate limit 600 requests per 60s per user or ip, counted in this process',
      ),
    );
  });

  it('names the shared backend and the failure mode', async () => {
    const app = await startGuardedApp({
      flags: { shared: { backend: 'postgres', onError: 'open' }, rateLimit: { max: 100, windowMs: '30s' } },
    });
    assert.ok(
      app.logs.some(
        (line) => line.msg === 'api rate limit 100 requests per 30s per user or ip, counted in postgres (fail open)',
      ),
      JSON.stringify(app.logs.map((l) => l.msg)),
    );
  });

  it('warns in production when trustProxy is true', async () => {
    const app = await startGuardedApp({ flags: { env: 'production', trustProxy: true } });
    assert.ok(app.logs.some((line) => line.level === 40 && /trustProxy is true/.test(String(line.msg))));
    const quiet = await startGuardedApp({ flags: { env: 'production', trustProxy: false } });
    assert.ok(!quiet.logs.some((line) => /trustProxy/.test(String(line.msg))));
  });
});
