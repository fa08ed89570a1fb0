/**
 * `stores` (named stores, a map) and `webhooks.store` (the one holding the endpoint table): the
 * defaults, the layers laid entry by entry, the JSON form of `APP_STORES`, every refusal at
 * start naming the setting, and the URLs masked when the configuration is printed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, maskConfig, resolveConfig, type ConfigSources } from '../../../shared/config/index.ts';

const resolve = (sources: ConfigSources) => resolveConfig({ ...sources, env: { NODE_ENV: 'test', ...sources.env } });

/** The problems of a configuration that must be refused. */
function problemsOf(sources: ConfigSources): readonly string[] {
  try {
    resolve(sources);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.problems;
  }
  assert.fail('the configuration was accepted');
}

const withStores = (stores: unknown, webhooks: Record<string, unknown> = {}) => ({ flags: { stores, webhooks } });

describe('stores: defaults and layers', () => {
  it("defaults to one store, default, the service's own PostgreSQL, holding the endpoint table", () => {
    for (const NODE_ENV of ['development', 'test', 'production']) {
      const { config } = resolveConfig({ env: { NODE_ENV, APP_SECRET: 'x'.repeat(32) } });
      assert.deepEqual(config.stores, { default: { adapter: 'postgresql' } });
      assert.equal(config.webhooks.store, 'default');
      assert.equal(config.webhooks.table, 'app_webhooks');
    }
  });

  it('reads APP_STORES as JSON and APP_WEBHOOKS__STORE; the default store stays unless replaced', () => {
    const { config } = resolve({
      env: {
        APP_STORES: '{"registry": {"adapter": "mysql", "url": "mysql://app:pw@db:3306/hooks"}}',
        APP_WEBHOOKS__STORE: 'registry',
      },
    });
    assert.deepEqual(config.stores, {
      default: { adapter: 'postgresql' },
      registry: { adapter: 'mysql', url: 'mysql://app:pw@db:3306/hooks' },
    });
    assert.equal(config.webhooks.store, 'registry');
    assert.ok(Object.isFrozen(config.stores.registry));
  });

  it('lays a store over the same store of the layers below, field by field; null removes a field or a store', () => {
    const { config } = resolve({
      env: { APP_CONFIG: 'app.json', APP_STORES: '{"registry": {"url": "mysql://env@db/hooks"}, "old": null}' },
      readFile: () =>
        JSON.stringify({
          stores: {
            registry: { adapter: 'mysql', url: 'mysql://file@db/hooks' },
            old: { adapter: 'disk', path: '/var/lib/old' },
            orm: { adapter: 'drizzle', url: 'postgres://db/orm', dialect: 'postgresql' },
          },
        }),
      flags: {
        stores: {
          default: { adapter: 'disk', path: '/var/lib/hooks' },
          orm: { url: null, adapter: 'postgresql', dialect: null },
        },
      },
    });
    assert.deepEqual(config.stores, {
      default: { adapter: 'disk', path: '/var/lib/hooks' },
      registry: { adapter: 'mysql', url: 'mysql://env@db/hooks' },
      orm: { adapter: 'postgresql' },
    });
  });

  it('accepts every adapter with what it needs', () => {
    const { config } = resolve(
      withStores({
        pg: { adapter: 'postgresql', url: 'postgres://u:p@other/hooks' },
        my: { adapter: 'mysql', url: 'mysql://u:p@db/hooks' },
        ms: { adapter: 'mssql', url: 'mssql://u:p@db/hooks' },
        orm: { adapter: 'drizzle', url: 'mysql://u:p@db/hooks', dialect: 'mysql' },
        mongo: { adapter: 'mongoose', url: 'mongodb+srv://u:p@cluster/hooks' },
        files: { adapter: 'disk', path: './data/hooks' },
        pg2: { adapter: 'drizzle', url: 'postgresql://u:p@db/hooks', dialect: 'postgresql' },
        maria: { adapter: 'mysql', url: 'mariadb://u:p@db/hooks' },
        ado: { adapter: 'mssql', url: 'Server=db,1433;Database=hooks;User Id=app;Password=p' },
        sqlserver: { adapter: 'mssql', url: 'SQLServer://u:p@db/hooks' },
      }),
    );
    assert.deepEqual(Object.keys(config.stores), [
      'default',
      'pg',
      'my',
      'ms',
      'orm',
      'mongo',
      'files',
      'pg2',
      'maria',
      'ado',
      'sqlserver',
    ]);
  });
});

describe('stores: refusals at start, each naming the setting', () => {
  const cases: [string, ConfigSources, RegExp][] = [
    [
      'a url missing for an adapter that needs one',
      withStores({ registry: { adapter: 'mysql' } }),
      /^stores\.registry\.url is required for adapter mysql$/,
    ],
    [
      'an unknown adapter',
      { env: { APP_STORES: '{"registry": {"adapter": "oracle", "url": "oracle://db"}}' } },
      /^stores\.registry\.adapter \(environment\): must be one of postgresql, mysql, mssql, drizzle, mongoose, disk, got "oracle"$/,
    ],
    [
      'a store without an adapter',
      withStores({ registry: { url: 'mysql://db/hooks' } }),
      /^stores\.registry\.adapter is required \(one of postgresql, mysql, mssql, drizzle, mongoose, disk\)$/,
    ],
    [
      'webhooks.store naming no store',
      withStores({}, { store: 'x' }),
      /^webhooks\.store names "x", which is not in stores \(default\)$/,
    ],
    [
      'a drizzle store without its dialect',
      withStores({ r: { adapter: 'drizzle', url: 'mysql://db/hooks' } }),
      /^stores\.r\.dialect must be postgresql or mysql for adapter drizzle$/,
    ],
    [
      'a dialect drizzle has not',
      withStores({ r: { adapter: 'drizzle', url: 'sqlite://hooks', dialect: 'sqlite' } }),
      /^stores\.r\.dialect \(flags\): must be one of postgresql, mysql, got "sqlite"$/,
    ],
    [
      'a dialect on another adapter',
      withStores({ r: { adapter: 'mysql', url: 'mysql://db/hooks', dialect: 'mysql' } }),
      /^stores\.r\.dialect does not apply to adapter mysql$/,
    ],
    [
      'a disk store without its path',
      withStores({ files: { adapter: 'disk' } }),
      /^stores\.files\.path is required for adapter disk$/,
    ],
    [
      'a url on a disk store',
      withStores({ files: { adapter: 'disk', path: '/data', url: 'file:///data' } }),
      /^stores\.files\.url does not apply to adapter disk$/,
    ],
    [
      'a url of another kind than the adapter connects with',
      withStores({ registry: { adapter: 'mysql', url: 'postgres://app:pw@db/hooks' } }),
      /^stores\.registry\.url must be a mysql:\/\/ or mariadb:\/\/ url for adapter mysql \(got postgres:\/\/…\)$/,
    ],
    [
      'a mongoose url that is not a MongoDB connection string',
      withStores({ registry: { adapter: 'mongoose', url: 'http://mongo.internal:27017/hooks' } }),
      /^stores\.registry\.url must be a mongodb:\/\/ or mongodb\+srv:\/\/ url for adapter mongoose \(got http:\/\/…\)$/,
    ],
    [
      "a drizzle url that is not its dialect's",
      withStores({ orm: { adapter: 'drizzle', dialect: 'postgresql', url: 'mysql://db/hooks' } }),
      /^stores\.orm\.url must be a postgres:\/\/ or postgresql:\/\/ url for adapter drizzle with dialect postgresql \(got mysql:\/\/…\)$/,
    ],
    [
      'an mssql url of another scheme',
      withStores({ ms: { adapter: 'mssql', url: 'mysql://db/hooks' } }),
      /^stores\.ms\.url must be a mssql:\/\/ or sqlserver:\/\/ url for adapter mssql \(got mysql:\/\/…\)$/,
    ],
    [
      'a postgresql url without a scheme',
      withStores({ registry: { adapter: 'postgresql', url: 'db.internal/hooks' } }),
      /^stores\.registry\.url must be a postgres:\/\/ or postgresql:\/\/ url for adapter postgresql$/,
    ],
    [
      'an empty url',
      withStores({ registry: { adapter: 'postgresql', url: '  ' } }),
      /^stores\.registry\.url may not be empty$/,
    ],
    [
      'an unknown field of a store',
      withStores({ registry: { adapter: 'mysql', url: 'mysql://db', pool: 5 } }),
      /^stores\.registry\.pool \(flags\): unknown key$/,
    ],
    [
      'a url that is not a string',
      withStores({ registry: { adapter: 'mysql', url: 5 } }),
      /^stores\.registry\.url \(flags\): must be a string, got 5$/,
    ],
    [
      'a store that is not an object',
      withStores({ registry: 'mysql' }),
      /^stores\.registry \(flags\): must be an object, got "mysql"$/,
    ],
    [
      'a name that is not a name',
      withStores({ 'my store': { adapter: 'disk', path: '/data' } }),
      /^stores\.my store \(flags\): a name is a letter then letters, digits, _ or - \(at most 63\), got "my store"$/,
    ],
    [
      'APP_STORES that is not JSON',
      { env: { APP_STORES: 'mysql://db' } },
      /^stores \(environment\): must be a JSON object of named entries$/,
    ],
    [
      'stores that is not a map',
      { flags: { stores: ['default'] } },
      /^stores \(flags\): must be an object of named entries, got \["default"\]$/,
    ],
    [
      'the default store removed while webhooks.store still names it',
      withStores({ default: null, registry: { adapter: 'disk', path: '/data' } }),
      /^webhooks\.store names "default", which is not in stores \(registry\)$/,
    ],
  ];
  for (const [what, sources, message] of cases) {
    it(`refuses ${what}`, () => {
      const problems = problemsOf(sources);
      assert.equal(problems.length, 1, problems.join('\n'));
      assert.match(problems[0], message);
    });
  }

  it('lists every store problem at once', () => {
    const problems = problemsOf(
      withStores(
        { a: { adapter: 'mysql' }, b: { adapter: 'mongoose' }, c: { adapter: 'disk', url: 'x' } },
        { store: 'nowhere' },
      ),
    );
    assert.deepEqual(problems, [
      'stores.a.url is required for adapter mysql',
      'stores.b.url is required for adapter mongoose',
      'stores.c.url does not apply to adapter disk',
      'stores.c.path is required for adapter disk',
      'webhooks.store names "nowhere", which is not in stores (default, a, b, c)',
    ]);
  });

  it("judges the rules across keys once each value's own type is right", () => {
    // the wrong type of port is listed; the rules across keys wait until the layers are valid
    assert.deepEqual(problemsOf({ flags: { port: 'x', stores: { a: { adapter: 'mysql' } } } }), [
      'port (flags): must be a number, got "x"',
    ]);
  });
});

describe('stores: masking', () => {
  it('masks the password of every store URL, keeping the host visible', () => {
    const { config } = resolve(
      withStores({
        registry: { adapter: 'mysql', url: 'mysql://app:hunter2@db.internal:3306/hooks' },
        mongo: { adapter: 'mongoose', url: 'mongodb+srv://app:s3cr3t@cluster.example/hooks' },
        ms: { adapter: 'mssql', url: 'mssql://db.internal/hooks?user=app&password=pa55' },
        ado: { adapter: 'mssql', url: 'Server=db;User Id=app;Password=adopass' },
        files: { adapter: 'disk', path: '/var/lib/hooks' },
      }),
    );
    const masked = maskConfig(config) as { stores: Record<string, { url?: string; path?: string }> };
    const text = JSON.stringify(masked);
    assert.doesNotMatch(text, /hunter2|s3cr3t|pa55|adopass/);
    assert.match(masked.stores.registry.url ?? '', /^mysql:\/\/app:.+@db\.internal:3306\/hooks$/);
    assert.match(masked.stores.mongo.url ?? '', /cluster\.example/);
    assert.match(masked.stores.ms.url ?? '', /db\.internal/);
    assert.equal(masked.stores.files.path, '/var/lib/hooks', 'a path is not a secret');
    assert.equal(
      config.stores.registry.url,
      'mysql://app:hunter2@db.internal:3306/hooks',
      'the config itself is untouched',
    );
  });
});
