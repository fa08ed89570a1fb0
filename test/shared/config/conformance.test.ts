/**
 * Config shapes users of helmet and of the shared backend expect: `config.helmet` takes
 * helmet's own options straight under it, `helmet.permissionsPolicy: false` sends no
 * `Permissions-Policy`, `config.shared` accepts a backend name alone, and the logger's `redact`
 * uses the configured `filterParameters`.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { secureHeaders } from '../../../api/middleware/secure-headers.ts';
import { resolveConfig } from '../../../shared/config/index.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { serveWeb } from '../../helpers/web.ts';

const configWith = (flags: Record<string, unknown>, env: Record<string, string> = {}) =>
  resolveConfig({ env: { NODE_ENV: 'test', ...env }, flags }).config;

describe('config.helmet', () => {
  it('takes helmet option names straight under it (merged into helmet.options), and still refuses an unknown type', () => {
    const config = configWith({
      helmet: {
        contentSecurityPolicy: { directives: { imgSrc: ["'self'", 'data:'] } },
        referrerPolicy: { policy: 'no-referrer' },
      },
    });
    assert.ok(config.helmet !== false);
    assert.deepEqual(config.helmet.options, {
      contentSecurityPolicy: { directives: { imgSrc: ["'self'", 'data:'] } },
      referrerPolicy: { policy: 'no-referrer' },
    });
    assert.throws(() => configWith({ helmet: { permissionsPolicy: 'yes' } }), /helmet\.permissionsPolicy/);
  });

  it('permissionsPolicy: false sends no Permissions-Policy header; the helmet options given under helmet reach the answer', async () => {
    const { base } = await serveWeb({
      helmet: { permissionsPolicy: false, referrerPolicy: { policy: 'no-referrer' } },
    });
    const answer = await fetch(`${base}/livez`);
    assert.equal(answer.headers.get('permissions-policy'), null);
    assert.equal(answer.headers.get('referrer-policy'), 'no-referrer');
    assert.ok(secureHeaders({ env: 'test', helmet: configWith({}).helmet }), 'on by default');
  });
});

describe('config.shared', () => {
  it('accepts a backend name alone, from a file or flags and from APP_SHARED', () => {
    assert.equal(configWith({ shared: 'postgres' }).shared.backend, 'postgres');
    assert.equal(configWith({}, { APP_SHARED: 'redis' }).shared.backend, 'redis');
    assert.throws(() => configWith({ shared: 'mongo' }), /shared\.backend/);
  });
});

describe('logger.redact', () => {
  it('masks with the configured filterParameters (the list replaces the defaults; encryption stays masked)', () => {
    const config = configWith({ filterParameters: ['pin'] });
    const log = createLogger(config, { name: 'test', destination: new Writable({ write: (_c, _e, done) => done() }) });
    assert.deepEqual(log.redact({ pin: '1234', password: 'shown', encryptionKey: 'k' }), {
      pin: '[FILTERED]',
      password: 'shown',
      encryptionKey: '[FILTERED]',
    });
    assert.deepEqual(
      (log.child({ scope: 'x' }) as typeof log).redact({ pin: '1' }),
      { pin: '[FILTERED]' },
      'children too',
    );
  });
});
