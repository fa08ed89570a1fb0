/**
 * The Config type is derived from the schema (shared/config/types.ts): these checks fail to
 * compile (`npm test` runs tsc first) if the derivation loses precision, e.g. becomes `any`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveConfig, type Config } from '../../../shared/config/index.ts';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Each assignable to the other (object types built by mapping are not identical to literals). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type RateLimit = Exclude<Config['rateLimit'], false>;

const checks: [
  Equal<Config['env'], 'development' | 'test' | 'production'>,
  Equal<Config['logLevel'], 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'>,
  Equal<Config['databaseUrl'], string | null>,
  Equal<Config['port'], number>,
  Equal<Config['trustProxy'], boolean>,
  Equal<Config['filterParameters'], readonly string[]>,
  Equal<Config['shared']['backend'], 'none' | 'postgres' | 'redis'>,
  Equal<Extract<Config['graphql'], false>, false>,
  Equal<RateLimit['auth'] extends false | { readonly paths: readonly string[] } ? true : false, true>,
  Equal<Config['webhooks']['backoff']['factor'], number>,
  Same<Config['api']['idempotency'], false | { readonly ttl: number; readonly store: string | null }>,
  Equal<Same<Config['api']['idempotency'], false | { readonly ttl: string; readonly store: string | null }>, false>,
  Same<
    Config['stores'][string],
    {
      readonly adapter: 'postgresql' | 'mysql' | 'mssql' | 'drizzle' | 'mongoose' | 'disk';
      readonly url?: string;
      readonly path?: string;
      readonly dialect?: 'postgresql' | 'mysql';
    }
  >,
  Equal<Config['webhooks']['store'], string>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, true, true];

describe('Config type', () => {
  it('is derived from the schema, key for key (compile-time checks), and matches what resolveConfig answers', () => {
    assert.ok(checks.every(Boolean));
    const config: Config = resolveConfig({ env: { NODE_ENV: 'test' } }).config;
    assert.equal(config.webhooks.backoff.factor, 3);
    assert.equal(config.webhooks.store, 'default');
    assert.deepEqual(config.stores, { default: { adapter: 'postgresql' } });
  });
});
