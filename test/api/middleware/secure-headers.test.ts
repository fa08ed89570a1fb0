import assert from 'node:assert/strict';
import { request } from 'node:http';
import { before, describe, it } from 'node:test';
import { POWERFUL_FEATURES, permissionsPolicy } from '../../../api/security/permissions-policy.ts';
import { seed, startApp, type TestApp } from '../fixtures/app.ts';

const directives = (csp: string | null) =>
  new Map(
    (csp ?? '')
      .split(';')
      .filter(Boolean)
      .map((part) => {
        const [name, ...values] = part.trim().split(/\s+/);
        return [name, values] as const;
      }),
  );

describe('secure headers: development vs production', () => {
  let development: TestApp;
  let production: TestApp;
  before(async () => {
    development = await startApp({ flags: { env: 'development' } });
    production = await startApp({ flags: { env: 'production' } });
  });

  it('development: CSP allows hot-reload tooling (unsafe-inline, unsafe-eval, ws:, blob:); no HSTS', async () => {
    const response = await fetch(`${development.api}/authors`);
    const csp = directives(response.headers.get('content-security-policy'));
    for (const value of ["'unsafe-inline'", "'unsafe-eval'", 'blob:'])
      assert.ok(csp.get('script-src')?.includes(value), value);
    assert.ok(csp.get('connect-src')?.includes('ws:'));
    assert.equal(response.headers.get('strict-transport-security'), null);
  });

  it('production: no unsafe-* nor ws:/blob: anywhere, no https: wildcard in style-src or font-src, HSTS on', async () => {
    const response = await fetch(`${production.api}/authors`);
    const header = response.headers.get('content-security-policy') ?? '';
    assert.doesNotMatch(header, /unsafe-inline|unsafe-eval|ws:|blob:/);
    const csp = directives(header);
    assert.deepEqual(csp.get('script-src'), ["'self'"]);
    assert.equal(csp.get('style-src')?.includes('https:'), false);
    assert.equal(csp.get('font-src')?.includes('https:'), false);
    assert.match(response.headers.get('strict-transport-security') ?? '', /max-age=31536000/);
  });

  for (const env of ['development', 'production'] as const) {
    it(`${env}: Cross-Origin-Opener-Policy same-origin, nosniff, Permissions-Policy denying powerful features`, async () => {
      const response = await fetch(`${(env === 'production' ? production : development).api}/authors`);
      assert.equal(response.headers.get('cross-origin-opener-policy'), 'same-origin');
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      const policy = response.headers.get('permissions-policy') ?? '';
      for (const feature of ['camera', 'microphone', 'geolocation', 'payment', 'usb'])
        assert.match(policy, new RegExp(`(^|, )${feature}=\\(\\)`));
    });
  }

  it('the default Permissions-Policy denies exactly the default list, with no name Chromium does not know', async () => {
    const policy = (await fetch(`${production.api}/authors`)).headers.get('permissions-policy') ?? '';
    assert.equal(policy, POWERFUL_FEATURES.map((feature) => `${feature}=()`).join(', '));
    // names Chromium's parser does not recognise: each would be a console warning on every page
    // (test/api/console/browser-console.test.ts checks the whole list against Chromium itself)
    for (const unknown of ['ambient-light-sensor', 'battery', 'bluetooth', 'web-share'])
      assert.doesNotMatch(policy, new RegExp(`(^|, )${unknown}=`), unknown);
  });

  it('secure headers are on error answers too', async () => {
    const response = await fetch(`${production.base}/nowhere`);
    assert.equal(response.status, 404);
    assert.ok(response.headers.get('content-security-policy'));
    assert.ok(response.headers.get('permissions-policy'));
  });

  it('upgrade-insecure-requests is not sent over plain http', async () => {
    const csp = directives((await fetch(`${production.api}/authors`)).headers.get('content-security-policy'));
    assert.equal(csp.has('upgrade-insecure-requests'), false);
  });
});

describe('secure headers: https detection and configuration', () => {
  it('upgrade-insecure-requests only for requests that arrived over https (trustProxy + X-Forwarded-Proto)', async () => {
    const proxied = await startApp({ flags: { env: 'production', trustProxy: true } });
    const viaHttps = await fetch(`${proxied.api}/authors`, { headers: { 'X-Forwarded-Proto': 'https' } });
    assert.equal(directives(viaHttps.headers.get('content-security-policy')).has('upgrade-insecure-requests'), true);
    const viaHttp = await fetch(`${proxied.api}/authors`, { headers: { 'X-Forwarded-Proto': 'http' } });
    assert.equal(directives(viaHttp.headers.get('content-security-policy')).has('upgrade-insecure-requests'), false);
    const untrusted = await startApp({ flags: { env: 'production', trustProxy: false } });
    const spoofed = await fetch(`${untrusted.api}/authors`, { headers: { 'X-Forwarded-Proto': 'https' } });
    assert.equal(
      directives(spoofed.headers.get('content-security-policy')).has('upgrade-insecure-requests'),
      false,
      'X-Forwarded-Proto is ignored without trustProxy',
    );
  });

  it('config.helmet.options is merged over ours: upgrade-insecure-requests configured on is sent over http; other options replace ours', async () => {
    const app = await startApp({
      flags: {
        helmet: {
          options: {
            contentSecurityPolicy: {
              directives: { upgradeInsecureRequests: [], imgSrc: ["'self'", 'https://images.example'] },
            },
            crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
          },
        },
      },
    });
    const response = await fetch(`${app.api}/authors`);
    const csp = directives(response.headers.get('content-security-policy'));
    assert.equal(csp.has('upgrade-insecure-requests'), true);
    assert.deepEqual(csp.get('img-src'), ["'self'", 'https://images.example']);
    assert.deepEqual(csp.get('script-src'), ["'self'"], 'the other directives stay');
    assert.equal(response.headers.get('cross-origin-opener-policy'), 'same-origin-allow-popups');
  });

  it('config.helmet.permissionsPolicy allows named features (geolocation for self); the rest stay denied', async () => {
    const app = await startApp({
      flags: {
        helmet: { permissionsPolicy: { geolocation: ['self'], fullscreen: ['self', 'https://player.example'] } },
      },
    });
    const policy = (await fetch(`${app.api}/authors`)).headers.get('permissions-policy') ?? '';
    assert.match(policy, /(^|, )geolocation=\(self\)/);
    assert.match(policy, /(^|, )fullscreen=\(self "https:\/\/player\.example"\)/);
    assert.match(policy, /(^|, )camera=\(\)/);
  });

  it('sendPermissionsPolicy false sends no Permissions-Policy; helmet false sends no secure headers at all', async () => {
    const noPolicy = await startApp({ flags: { helmet: { sendPermissionsPolicy: false } } });
    const first = await fetch(`${noPolicy.api}/authors`);
    assert.equal(first.headers.get('permissions-policy'), null);
    assert.ok(first.headers.get('content-security-policy'));
    const off = await startApp({ flags: { helmet: false } });
    const second = await fetch(`${off.api}/authors`);
    for (const name of [
      'content-security-policy',
      'permissions-policy',
      'cross-origin-opener-policy',
      'x-content-type-options',
    ]) {
      assert.equal(second.headers.get(name), null, name);
    }
  });

  it('permissionsPolicy() writes self bare, origins quoted, and an empty list as ()', () => {
    const value = permissionsPolicy({ geolocation: ['self'], camera: [], 'interest-cohort': [] });
    assert.match(value, /geolocation=\(self\)/);
    assert.match(value, /camera=\(\)/);
    assert.match(value, /interest-cohort=\(\)/);
    assert.match(permissionsPolicy({ payment: 'https://pay.example' }), /payment=\("https:\/\/pay\.example"\)/);
  });
});

describe('compression', () => {
  const gzipped = (base: string) =>
    new Promise<string | undefined>((resolve, reject) => {
      const url = new URL(`${base}/api/v1/posts?per_page=100`);
      request(url, { headers: { 'Accept-Encoding': 'gzip' } }, (response) => {
        response.resume();
        resolve(response.headers['content-encoding']);
      })
        .on('error', reject)
        .end();
    });

  it('large answers are compressed in production only', async () => {
    const production = await startApp({ flags: { env: 'production' } });
    await seed(production, { authors: 2, posts: 30 });
    const development = await startApp({ flags: { env: 'development' } });
    assert.equal(await gzipped(production.base), 'gzip');
    assert.equal(await gzipped(development.base), undefined);
  });
});
