import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, envName, maskConfig, resolveConfig } from '../../../shared/config/index.ts';

const files = (content: unknown) => ({
  readFile: () => (typeof content === 'string' ? content : JSON.stringify(content)),
});

describe('config layers', () => {
  it('uses the documented defaults of each environment', () => {
    const development = resolveConfig({ env: {} }).config;
    assert.equal(development.env, 'development');
    assert.equal(development.port, 3000);
    assert.equal(development.requestTimeout, 30_000);
    assert.equal(development.bodyLimit, 1024 * 1024);
    assert.deepEqual(development.shutdown, { signals: true, delay: 0, drain: 10_000 });
    assert.deepEqual(development.webhooks.backoff, { base: 10_000, factor: 3, max: 6 * 3_600_000, jitter: 0.2 });
    assert.equal(development.webhooks.maxAttempts, 8);
    assert.equal(development.webhooks.maxFanout, 1000);
    assert.equal(development.webhooks.install, true);
    assert.equal(development.api.perPage, 25);
    assert.equal(development.api.maxPerPage, 100);
    assert.ok(development.graphql && development.graphql.path === '/_app/gql');
    const production = resolveConfig({ env: { NODE_ENV: 'production' } }).config;
    assert.equal(production.webhooks.install, false, 'production runs migrations at release instead');
    assert.ok(production.graphql && production.graphql.introspection === false);
  });

  it('lays file < environment < flags, each over the one before', () => {
    const { config } = resolveConfig({
      env: { APP_CONFIG: 'app.json', APP_WEBHOOKS__TIMEOUT: '5s', PORT: '4000' },
      ...files({ port: 3500, webhooks: { timeout: '20s', maxFanout: 10 }, api: { perPage: 50 } }),
      flags: { api: { perPage: 60 } },
    });
    assert.equal(config.port, 4000, 'PORT beats the file');
    assert.equal(config.webhooks.timeout, 5000, 'environment beats the file');
    assert.equal(config.webhooks.maxFanout, 10, 'the file beats the default');
    assert.equal(config.api.perPage, 60, 'flags beat everything');
  });

  it('reads the conventional variables DATABASE_URL, PORT, APP_SECRET, NODE_ENV, LOG_LEVEL', () => {
    const { config } = resolveConfig({
      env: {
        DATABASE_URL: 'postgres://u:p@db/app',
        PORT: '8080',
        APP_SECRET: 's3cret',
        NODE_ENV: 'test',
        LOG_LEVEL: 'debug',
      },
    });
    assert.equal(config.databaseUrl, 'postgres://u:p@db/app');
    assert.equal(config.port, 8080);
    assert.equal(config.secret, 's3cret');
    assert.equal(config.env, 'test');
    assert.equal(config.logLevel, 'debug');
  });

  it('maps every key to APP_ + upper snake path joined by __', () => {
    assert.equal(envName(['webhooks', 'allowHttp']), 'APP_WEBHOOKS__ALLOW_HTTP');
    assert.equal(envName(['webhooks', 'backoff', 'base']), 'APP_WEBHOOKS__BACKOFF__BASE');
    assert.equal(envName(['secret']), 'APP_SECRET');
    const { config } = resolveConfig({
      env: { APP_WEBHOOKS__ALLOW_HTTP: 'true', APP_WEBHOOKS__BACKOFF__BASE: '250ms', APP_FILTER_PARAMETERS: 'pin,otp' },
    });
    assert.equal(config.webhooks.allowHttp, true);
    assert.equal(config.webhooks.backoff.base, 250);
    assert.deepEqual(config.filterParameters, ['pin', 'otp']);
  });

  it('accepts durations as milliseconds or text such as 10s and 6h', () => {
    const { config } = resolveConfig({
      env: {},
      flags: { requestTimeout: 1500, shutdown: { drain: '2m', delay: '250ms' }, webhooks: { backoff: { max: '1d' } } },
    });
    assert.equal(config.requestTimeout, 1500);
    assert.equal(config.shutdown.drain, 120_000);
    assert.equal(config.shutdown.delay, 250);
    assert.equal(config.webhooks.backoff.max, 86_400_000);
  });

  it('turns a feature off with false and sets the GraphQL path with a string', () => {
    const off = resolveConfig({ env: { APP_RATE_LIMIT: 'false' }, flags: { graphql: false, helmet: false } }).config;
    assert.equal(off.rateLimit, false);
    assert.equal(off.graphql, false);
    assert.equal(off.helmet, false);
    const moved = resolveConfig({ env: {}, flags: { graphql: '/gql' } }).config;
    assert.ok(moved.graphql && moved.graphql.path === '/gql' && moved.graphql.maxDepth === 10);
    const authOff = resolveConfig({ env: {}, flags: { rateLimit: { auth: false } } }).config;
    assert.ok(authOff.rateLimit && authOff.rateLimit.auth === false && authOff.rateLimit.max === 600);
  });

  it('lists every problem of every layer at once, not the first', () => {
    assert.throws(
      () =>
        resolveConfig({
          env: { APP_CONFIG: 'app.json', PORT: 'eighty', APP_SHUTDOWN__DRAIN: '-5s' },
          ...files({ webhook: {}, api: { perPage: 'many' }, webhooks: { maxAttempts: 0 } }),
          flags: { trustProxy: 'yes please' },
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        const text = error.problems.join('\n');
        assert.match(text, /webhook \(file\): unknown key/);
        assert.match(text, /api\.perPage \(file\): must be a number/);
        assert.match(text, /webhooks\.maxAttempts \(file\): must be at least 1/);
        assert.match(text, /port \(environment\): must be a number/);
        assert.match(text, /shutdown\.drain \(environment\): must be a duration/);
        assert.match(text, /trustProxy \(flags\): must be true or false/);
        assert.equal(error.problems.length, 6);
        return true;
      },
    );
  });

  it('refuses a databaseUrl the PostgreSQL driver cannot read, naming DATABASE_URL and never the value', () => {
    for (const url of [
      'notaurl',
      'postgres://app:hunter2@db host/app',
      'postgres://app:hunter2@db:port/app',
      // another service's URL: the driver would read it as a PostgreSQL address
      'http://app:hunter2@db:5432/app',
      'redis://app:hunter2@db:6379',
    ]) {
      assert.throws(
        () => resolveConfig({ env: { DATABASE_URL: url } }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.deepEqual(error.problems, [
            'databaseUrl (DATABASE_URL) is not a URL the PostgreSQL driver can read, such as postgres://user:password@host:5432/database',
          ]);
          assert.doesNotMatch(error.message, /hunter2|notaurl/);
          return true;
        },
        url,
      );
    }
    for (const url of [
      'postgres://u:p@db/app',
      'postgresql://u@db1:5432,db2:5433/app?sslmode=require',
      'postgres://u:p%40ss@[::1]:5432/app',
      'POSTGRESQL://u@db/app',
    ])
      assert.equal(resolveConfig({ env: { DATABASE_URL: url } }).config.databaseUrl, url);
  });

  it('refuses a port past 65535, the web one and the worker listener one alike', () => {
    for (const [env, problem] of [
      [{ PORT: '70000' }, 'port (environment): must be at most 65535, got 70000'],
      [{ APP_WORKER__METRICS_PORT: '65536' }, 'worker.metricsPort (environment): must be at most 65535, got 65536'],
    ] as const)
      assert.throws(
        () => resolveConfig({ env }),
        (error: unknown) => error instanceof ConfigError && error.problems.join('\n') === problem,
      );
    assert.equal(resolveConfig({ env: { PORT: '65535' } }).config.port, 65535);
  });

  it('refuses a blank metrics.token, from a file, a flag or the environment: it would let every scrape in', () => {
    for (const sources of [
      { env: { APP_CONFIG: 'app.json' }, ...files({ metrics: { token: '' } }) },
      { env: {}, flags: { metrics: { token: '   ' } } },
      { env: { APP_METRICS__TOKEN: ' ' } },
    ])
      assert.throws(
        () => resolveConfig(sources),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.problems.join('\n') ===
            'metrics.token (APP_METRICS__TOKEN) is blank: leave it unset to serve no metrics, or set a token',
      );
    assert.equal(
      resolveConfig({ env: { APP_METRICS__TOKEN: '' } }).config.metrics.token,
      null,
      'an empty variable is unset',
    );
    assert.equal(resolveConfig({ env: { APP_METRICS__TOKEN: 'scrape' } }).config.metrics.token, 'scrape');
  });

  it('refuses a publicUrl or an OTLP collector address that is not an http(s) URL, naming its variable and never the value', () => {
    for (const [env, problem] of [
      [
        { APP_PUBLIC_URL: 'hooks example com' },
        'publicUrl (APP_PUBLIC_URL) is not a URL, such as https://hooks.example.com',
      ],
      [
        { APP_PUBLIC_URL: 'ftp://user:hunter2@hooks.example.com' },
        'publicUrl (APP_PUBLIC_URL) must be an http or https URL, such as https://hooks.example.com',
      ],
      [
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector 4318' },
        'telemetry.endpoint (OTEL_EXPORTER_OTLP_ENDPOINT) is not a URL, such as http://collector:4318',
      ],
      [
        { APP_TELEMETRY__ENDPOINT: 'collector:4318' },
        'telemetry.endpoint (OTEL_EXPORTER_OTLP_ENDPOINT) must be an http or https URL, such as http://collector:4318',
      ],
      [
        { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://user:hunter2@gateway/spans' },
        'telemetry.tracesEndpoint (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) must be an http or https URL, such as http://collector:4318/v1/traces',
      ],
    ] as const)
      assert.throws(
        () => resolveConfig({ env }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.deepEqual(error.problems, [problem]);
          assert.doesNotMatch(error.message, /hunter2/);
          return true;
        },
        JSON.stringify(env),
      );
    // what the exporters and the links take
    const taken = (env: Record<string, string>) => resolveConfig({ env }).config;
    assert.equal(
      taken({ APP_PUBLIC_URL: 'https://hooks.example.com/base/' }).publicUrl,
      'https://hooks.example.com/base/',
    );
    assert.equal(
      taken({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).telemetry.endpoint,
      'http://collector:4318',
    );
    // the gRPC exporter reads host:port as https://host:port
    assert.equal(
      taken({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).telemetry.endpoint,
      'collector:4317',
    );
    assert.equal(taken({ APP_PUBLIC_URL: '' }).publicUrl, null);
  });

  it('reports a config file that is not JSON', () => {
    assert.throws(
      () => resolveConfig({ env: { APP_CONFIG: 'broken.json' }, ...files('{ not json') }),
      /APP_CONFIG \(broken\.json\)/,
    );
  });

  it('warns about APP_ variables that are not keys instead of failing (PaaS set their own)', () => {
    const { warnings } = resolveConfig({ env: { APP_URL: 'https://x', APP_CONFIG: '' } });
    assert.deepEqual(warnings, ['environment variable APP_URL is not a configuration key; ignored']);
  });

  it('names the variable a misspelt one was likely meant to be, and none for a platform short name', () => {
    const warned = (name: string) => resolveConfig({ env: { [name]: '3' } }).warnings;
    assert.deepEqual(warned('APP_WEBHOOK_CONCURENCY'), [
      'environment variable APP_WEBHOOK_CONCURENCY is not a configuration key; ignored (did you mean APP_WEBHOOKS__CONCURRENCY?)',
    ]);
    assert.deepEqual(warned('APP_WORKER_METRICS_PORT'), [
      'environment variable APP_WORKER_METRICS_PORT is not a configuration key; ignored (did you mean APP_WORKER__METRICS_PORT?)',
    ]);
    for (const name of ['APP_URL', 'APP_NAME', 'APP_ID'])
      assert.deepEqual(warned(name), [`environment variable ${name} is not a configuration key; ignored`]);
  });

  it('freezes the resolved object, nested levels included', () => {
    const { config } = resolveConfig({ env: {} });
    assert.ok(Object.isFrozen(config));
    assert.ok(Object.isFrozen(config.webhooks.backoff));
    assert.throws(() => {
      (config.webhooks as { timeout: number }).timeout = 1;
    }, TypeError);
  });

  it('masks secrets when printed, keeping the database host visible', () => {
    const { config } = resolveConfig({
      env: { APP_SECRET: 'topsecret', DATABASE_URL: 'postgres://app:hunter2@db.internal:5432/app' },
    });
    const masked = JSON.stringify(maskConfig(config));
    assert.doesNotMatch(masked, /topsecret|hunter2/);
    assert.match(masked, /db\.internal:5432/);
  });

  it('masks each previous secret when printed', () => {
    const { config } = resolveConfig({
      env: { APP_SECRET: 'topsecret', APP_PREVIOUS_SECRETS: 'oldsecret1,oldsecret2' },
    });
    const masked = maskConfig(config);
    assert.deepEqual(masked.previousSecrets, ['[masked]', '[masked]']);
    assert.doesNotMatch(JSON.stringify(masked), /oldsecret/);
  });
});

describe('config.previousSecrets', () => {
  it('is empty by default, read from APP_PREVIOUS_SECRETS as a comma list and from a file as an array of strings', () => {
    assert.deepEqual(resolveConfig({ env: {} }).config.previousSecrets, []);
    assert.deepEqual(
      resolveConfig({ env: { APP_SECRET: 'current', APP_PREVIOUS_SECRETS: 'old-one, old-two' } }).config
        .previousSecrets,
      ['old-one', 'old-two'],
    );
    assert.deepEqual(
      resolveConfig({ env: { APP_CONFIG: 'app.json' }, ...files({ secret: 'current', previousSecrets: ['old-one'] }) })
        .config.previousSecrets,
      ['old-one'],
    );
  });

  it('refuses a previous secret equal to the current one, in one problem that names both settings and never the value', () => {
    assert.throws(
      () =>
        resolveConfig({ env: { APP_SECRET: 'the-current-secret', APP_PREVIOUS_SECRETS: 'old,the-current-secret' } }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems, [
          'previousSecrets (APP_PREVIOUS_SECRETS) holds the current secret (APP_SECRET): list only the secrets APP_SECRET replaced',
        ]);
        assert.doesNotMatch(error.message, /the-current-secret/);
        return true;
      },
    );
  });
});
