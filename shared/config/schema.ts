/**
 * Every configuration key, its type, its default per environment and what it does. This table
 * is the single source for validation (shared/config/resolve.ts), the environment naming rule
 * and the configuration reference, docs/configuration.md (generated; a test keeps the two in step).
 *
 * Environment naming rule: `APP_` + the key path in upper snake case, levels joined by `__`
 * (`webhooks.allowHttp` -> `APP_WEBHOOKS__ALLOW_HTTP`). A few keys also keep their
 * conventional names (`DATABASE_URL`, `PORT`, `NODE_ENV`, `LOG_LEVEL`, `APP_SECRET`).
 */

import { ADAPTERS } from '../webhooks/endpoint-stores/types.ts';
import { checkDatabaseUrl } from './database-url.ts';
import { checkStoreName, checkStores } from './stores.ts';
import { checkPreviousSecrets } from './previous-secrets.ts';
import { checkPublicUrl, checkTelemetryEndpoint, checkTelemetryTracesEndpoint } from './urls.ts';

export type Environment = 'development' | 'test' | 'production';

export type LeafType =
  | 'string'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'duration'
  | 'size'
  | 'enum'
  | 'string[]'
  | 'object'
  | 'map';

export interface Leaf {
  kind: 'leaf';
  type: LeafType;
  doc: string;
  default: unknown | ((env: Environment) => unknown);
  /** Allowed values of an `enum`. */
  values?: readonly string[];
  /** null is an accepted value (and means "not set"). */
  nullable?: boolean;
  /** Masked by `app config` and in logs. */
  secret?: boolean;
  /** Extra, conventional environment variable names read before the ruled name. */
  envAliases?: readonly string[];
  /** Lower bound for numbers. */
  min?: number;
  /** Upper bound for numbers. */
  max?: number;
  /** An `object` leaf that also accepts `false` (a feature turned off). */
  allowFalse?: boolean;
  /**
   * The fields of each named entry of a `map` (`{"<name>": {"<field>": …}}`), each checked as a
   * leaf of its own; a field that is not `nullable` is required, one set to null is removed.
   */
  entry?: Readonly<Record<string, Leaf>>;
  /**
   * Rules across fields or keys, judged once every layer is laid and each value has passed its own
   * type: the problems of `value` in `config` (the whole resolved tree), each a message naming
   * the setting.
   */
  check?: (value: unknown, config: Readonly<Record<string, unknown>>) => string[];
}

export interface Group {
  kind: 'group';
  doc?: string;
  children: Record<string, Node>;
  /** The whole group may be set to `false` to turn the feature off. */
  disableable?: boolean;
  /** When disableable: whether it is on by default. */
  enabled?: boolean | ((env: Environment) => boolean);
  /** A string given where the group is expected sets this child (e.g. `"graphql": "/gql"`). */
  shorthand?: string;
  /**
   * Keys the group does not declare are collected into this `object` child instead of being
   * refused (e.g. helmet's own options given straight under `helmet`).
   */
  rest?: string;
}

export type Node = Leaf | Group;

// Generic over their literal arguments (`const` type parameters) so that the type of the
// resolved configuration is derived from this table (shared/config/types.ts), not copied.
const leaf = <const T extends LeafType, const E extends Partial<Leaf> = Record<never, never>>(
  type: T,
  defaultValue: Leaf['default'],
  doc: string,
  extra: E = {} as E,
) => ({ kind: 'leaf', type, default: defaultValue, doc, ...extra }) as Leaf & { type: T } & E;
const group = <const C extends Record<string, Node>, const E extends Partial<Group> = Record<never, never>>(
  children: C,
  extra: E = {} as E,
) => ({ kind: 'group', children, ...extra }) as Omit<Group, 'children'> & { children: C } & E;
const inProduction = (env: Environment) => env === 'production';

/** A map entry's field: no default of its own (an entry has the fields it is given). */
const field = <const T extends LeafType, const E extends Partial<Leaf> = Record<never, never>>(
  type: T,
  doc: string,
  extra: E = {} as E,
) => leaf(type, null, doc, extra);

export const SCHEMA = group({
  env: leaf('enum', 'development', 'Runtime environment; picks the defaults of the other keys.', {
    values: ['development', 'test', 'production'],
    envAliases: ['NODE_ENV'],
  }),
  port: leaf('integer', 3000, 'TCP port of the web process.', { envAliases: ['PORT'], min: 0, max: 65535 }),
  host: leaf('string', '0.0.0.0', 'Address the web process listens on.'),
  databaseUrl: leaf(
    'string',
    null,
    'PostgreSQL connection URL. Unset: `npm start` and `npm test` start an embedded PostgreSQL.',
    {
      nullable: true,
      secret: true,
      envAliases: ['DATABASE_URL'],
      check: checkDatabaseUrl,
    },
  ),
  secret: leaf(
    'string',
    null,
    'Application secret; webhook signing secrets are encrypted under a key derived from it. Unset: stored unencrypted (the web and worker boots warn, and in production every CLI command that stores a secret).',
    {
      nullable: true,
      secret: true,
    },
  ),
  previousSecrets: leaf(
    'string[]',
    [],
    'Application secrets `secret` replaced, that sealed values may still be under: they are opened, never used to seal. Remove them once `app secrets:seal` has re-sealed everything under `secret` (the security audit reports them until then).',
    { secret: true, check: checkPreviousSecrets },
  ),
  allowUnencryptedSecrets: leaf(
    'boolean',
    false,
    'Production only: start without `secret`, storing signing secrets unencrypted (the security audit reports it as high). Without it a production process refuses to start unless `secret` has at least 32 characters.',
  ),
  logLevel: leaf('enum', (env: Environment) => (env === 'test' ? 'warn' : 'info'), 'pino log level.', {
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    envAliases: ['LOG_LEVEL'],
  }),
  trustProxy: leaf('boolean', false, 'Trust `X-Forwarded-*` headers (client ip, https) from a proxy in front.'),
  proxyHops: leaf(
    'integer',
    1,
    "With `trustProxy`: how many proxies in front append to `X-Forwarded-For`; the client's ip is the entry the farthest of them added, so that what a client writes in the header itself is never taken (a PaaS router: 1; a CDN before it: 2).",
    { min: 1 },
  ),
  bodyLimit: leaf('size', '1mb', 'Largest JSON or form body accepted (larger: 413).'),
  bodiesInFlight: leaf(
    'size',
    '16mb',
    "Most bytes of request bodies one client (its ip, as `trustProxy` reads it) may have being received by one web process at once, each counted at its `Content-Length` (`bodyLimit` when chunked) until it is read; past it: 429 `APP_BODIES_IN_FLIGHT`, the body unread. A client's first body is always taken. Bounds the memory that stalled uploads hold until `requestTimeout`.",
  ),
  requestTimeout: leaf(
    'duration',
    '30s',
    'A request still running after this answers 503, and nothing of it commits afterwards; the statements it has under way are cancelled on PostgreSQL. A request one of whose writes was already committing is answered for real instead.',
  ),
  filterParameters: leaf(
    'string[]',
    ['password', 'token', 'secret', 'authorization'],
    'Key names (case-insensitive substrings) whose values are masked in logs; setting it replaces the defaults, `encryption` stays masked.',
  ),
  publicUrl: leaf(
    'string',
    null,
    "Public base URL of the web process, an http or https URL (`https://hooks.example.com`), used in links sent by mail and printed by the CLI; unset: the request's own origin (the CLI: the web process of the running `npm start` whose database it uses, else `http://localhost:<port>`). Set it in production: there, without it, forgotten-password mails are not sent (a link built from a request trusts its `Host` header).",
    { nullable: true, check: checkPublicUrl },
  ),
  auth: group({
    signup: leaf(
      'boolean',
      false,
      'Self-service sign-up at `POST /register` and `POST /signup`; each new user is a `member` of a tenant of its own (owner = its user id).',
    ),
    signupConfirm: leaf(
      'boolean',
      true,
      'With `signup`: a sign-up makes nothing and answers `202` alike for every email; the email is mailed a link (valid `resetTtl`, once) whose page asks the password and makes the account, or, when it has an account, a notice. `false`: the account is made and signed in at once, and a taken email is refused with 409, which tells anyone which emails have accounts.',
    ),
    passwordMinLength: leaf(
      'integer',
      10,
      'Shortest password accepted (the 50,000 most common passwords are refused whatever their length).',
      { min: 8 },
    ),
    session: group({
      cookie: leaf(
        'string',
        (env: Environment) => (inProduction(env) ? '__Host-app_session' : 'app_session'),
        'Name of the session cookie (`HttpOnly`, `SameSite=Lax`, `Path=/`; `Secure` in production, where the `__Host-` prefix binds it to the exact host).',
      ),
      idle: leaf('duration', '2h', 'A session unused this long has ended.'),
      absolute: leaf('duration', '7d', 'A session ends this long after sign-in, however much it is used.'),
    }),
    lockout: group(
      {
        attempts: leaf('integer', 5, 'Wrong passwords for one account within `window` that lock its sign-in.', {
          min: 1,
        }),
        window: leaf('duration', '15m', 'Window the wrong passwords are counted in.'),
        duration: leaf(
          'duration',
          '15m',
          "How long a locked account's sign-in answers 429 `APP_AUTH_LOCKED`, even with the right password.",
        ),
      },
      {
        disableable: true,
        enabled: true,
        doc: '`false` turns the sign-in lockout off (the authentication limiter still counts per ip).',
      },
    ),
    resetTtl: leaf(
      'duration',
      '1h',
      'How long a password-reset link (`POST /forgot-password`) and a sign-up confirmation link (`signupConfirm`) work; each works once.',
    ),
    inviteTtl: leaf(
      'duration',
      '72h',
      'How long a set-password link printed by `app users:create` or `users:reset-link` works.',
    ),
    tokenCache: leaf(
      'duration',
      '5s',
      'How long a web process trusts an API token it has looked up without reading it again. A revocation (or any change of the token) reaches every web process at once through LISTEN/NOTIFY; this is its bound when a notice is lost (0: look the token up on every request).',
    ),
    portalLinkTtl: leaf(
      'duration',
      '15m',
      "How long a tenant portal link (`app portal:link`, the console's Tenants page) works; each signs in once, starting a session of the ordinary lifetime.",
    ),
  }),
  mail: group({
    url: leaf(
      'string',
      null,
      'SMTP URL the reset and sign-up mails are sent through (`smtp://user:pass@host:587`, `smtps://…`); unset: outside production the mail is logged instead of sent.',
      { nullable: true, secret: true },
    ),
    from: leaf('string', 'app <no-reply@localhost>', 'Sender of the mails the service sends.'),
  }),
  db: group({
    poolMax: leaf('integer', 10, "Connections in each process's pool for the service's own queries.", { min: 1 }),
    maxLifetime: leaf(
      'duration',
      '5m',
      "How long a database connection lives before it is replaced (one in use, once its statement ends): the service's pools and graphile-worker's in the worker alike; a session lock's connection is kept. A failover that moves the database's name (an Aurora cluster endpoint, a Multi-AZ name) leaves connections opened on the old primary, now a reader, refusing every write; this bounds how long, so a process recovers by itself within it once the name points at the writer. 5 minutes costs each connection one reconnect (a few milliseconds, a TLS handshake) every 5 minutes, nothing a pool notices, while a write outage after a failover lasts minutes at most instead of the drivers' own 30 to 60 minutes (postgres.js) or forever (graphile-worker's). 0: never replaced.",
    ),
    sslMode: leaf(
      'enum',
      null,
      "TLS to the database when `databaseUrl` names no `sslmode`, read as libpq reads it: `require` encrypts without checking the server's certificate (what Heroku Postgres and most hosted databases need), `verify-ca` checks it against the URL's `sslrootcert`, `verify-full` also checks the host name; `disable`, `allow`, `prefer` and unset connect without TLS. The URL's own `sslmode` wins.",
      {
        values: ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'],
        nullable: true,
        envAliases: ['PGSSLMODE'],
      },
    ),
  }),
  stores: leaf(
    'map',
    { default: { adapter: 'postgresql' } },
    "Named stores, each `{adapter, url?, path?, dialect?}`; `webhooks.store` names the one that holds the endpoint table. `default` out of the box is the service's own PostgreSQL (`databaseUrl`). A store given in a layer is laid over the same store of the layers below it, field by field; null removes a field, or a whole store.",
    {
      entry: {
        adapter: field('enum', 'Driver of the store.', { values: ADAPTERS }),
        url: field(
          'string',
          "Connection URL; required by `mysql`, `mssql`, `mongoose` and `drizzle`. A `postgresql` store without one is the service's own database and pool.",
          { nullable: true, secret: true },
        ),
        path: field('string', 'Directory of a `disk` store (required by it).', { nullable: true }),
        dialect: field('enum', 'SQL dialect of a `drizzle` store (required by it).', {
          values: ['postgresql', 'mysql'],
          nullable: true,
        }),
      },
      check: checkStores,
    },
  ),
  api: group({
    perPage: leaf('integer', 25, 'Default page size.', { min: 1 }),
    maxPerPage: leaf('integer', 100, 'Cap on `per_page`.', { min: 1 }),
    maxPageOffset: leaf(
      'integer',
      10000,
      'The most records a page of any listing may skip (`page` - 1 times `per_page`: events, deliveries, endpoints, event types, tokens, users, tenants, a model\'s records; REST, GraphQL, the console and `users:list`); a page starting further in is refused with 422 `APP_PAGE_TOO_DEEP`, and no paging link points past it. PostgreSQL reads every record a page skips, so this bounds the cost of the deepest page (docs/http-api.md, "Pagination").',
      { min: 0 },
    ),
    exactTotal: leaf(
      'integer',
      10000,
      "The event and delivery listings count their `total` when PostgreSQL expects at most this many matches (and read it off a last page); past it, `total` is PostgreSQL's estimate, remembered by each process for 10 s per filter and tenant, and the page says `totalEstimated: true` (0: always count, slow on large tables).",
      { min: 0 },
    ),
    strict: leaf('boolean', false, 'Refuse (500) a resource/crud answer without `_links` or contrary to its action.'),
    maxQueryLength: leaf(
      'size',
      '4kb',
      'Longest query string accepted (longer: 414 `APP_QUERY_TOO_LONG`); the health paths ignore their query and are exempt.',
    ),
    idempotency: group(
      {
        ttl: leaf('duration', '24h', 'How long a stored answer is replayed.'),
        store: leaf(
          'string',
          null,
          'Module path of a custom idempotency store (`get`, `set`, `delete`, or a factory).',
          { nullable: true },
        ),
      },
      { disableable: true, enabled: true, doc: '`false` turns idempotency keys off.' },
    ),
  }),
  rateLimit: group(
    {
      max: leaf('integer', 600, 'Requests per window per user id (logged in) or ip.', { min: 1 }),
      windowMs: leaf('duration', '1m', 'Window of the global limiter.'),
      enforceInDevelopment: leaf('boolean', false, 'Enforce the global limiter in development too.'),
      store: leaf('string', null, 'Module path of a custom counter store.', { nullable: true }),
      auth: group(
        {
          max: leaf('integer', 10, 'POST requests per window per ip on the authentication paths.', { min: 1 }),
          windowMs: leaf('duration', '1m', 'Window of the authentication limiter.'),
          paths: leaf(
            'string[]',
            [
              '/login',
              '/register',
              '/signup',
              '/confirm-signup',
              '/password',
              '/forgot-password',
              '/reset-password',
              '/portal',
            ],
            'Paths the authentication limiter covers.',
          ),
        },
        { disableable: true, enabled: true, doc: '`false` turns off only the authentication limiter.' },
      ),
    },
    { disableable: true, enabled: true, doc: '`false` turns every limiter off.' },
  ),
  shared: group(
    {
      backend: leaf(
        'enum',
        'none',
        'Backend shared by all web processes for idempotency records, rate-limit counters and the sign-in lockout.',
        {
          values: ['none', 'postgres', 'redis'],
        },
      ),
      url: leaf(
        'string',
        null,
        'Redis URL when `backend` is `redis`; with `postgres`, another (migrated) database than `databaseUrl`.',
        { nullable: true, secret: true },
      ),
      onError: leaf(
        'enum',
        'closed',
        '`closed`: refuse with 503 when the shared store fails; `open`: serve uncounted.',
        { values: ['closed', 'open'] },
      ),
      timeout: leaf(
        'duration',
        '2s',
        'Longest wait for the shared store; a slower answer counts as a failure (see `onError`).',
      ),
      maxMemoryBytes: leaf(
        'size',
        '64mb',
        'With `backend` `none`: most bytes the idempotency records, rate-limit counts, sign-in lockout slots and console one-time marks of one web process hold together. Past it records are evicted before they expire (logged, `app_shared_memory_evictions_total`), those holding a refusal last: first the oldest of the kind holding the most among the records that refuse nothing (a retry of an evicted idempotency key runs again, an evicted count starts over); a sign-in lock, the later failure slots of an account and a rate-limit count at its limit go only once nothing else is left, the lowest priority and oldest first, with a warning saying so. Use `postgres` for the full `api.idempotency.ttl` under heavy keyed traffic.',
      ),
    },
    { shorthand: 'backend', doc: 'A backend name alone (`"shared": "postgres"`, `APP_SHARED=redis`) sets `backend`.' },
  ),
  shutdown: group({
    signals: leaf('boolean', true, 'Listen to SIGINT/SIGTERM; false: the application calls `server.shutdown()`.'),
    delay: leaf('duration', 0, 'Time the port keeps serving after readiness turns 503.'),
    drain: leaf('duration', '10s', 'Time in-flight requests get to finish before they are destroyed.'),
  }),
  helmet: group(
    {
      options: leaf(
        'object',
        {},
        'koa-helmet options merged over the service\'s own; helmet\'s option names given straight under `helmet` (e.g. `{"helmet": {"contentSecurityPolicy": …}}`) land here too.',
      ),
      permissionsPolicy: leaf(
        'object',
        {},
        'Browser features to allow, e.g. `{"geolocation": ["self"]}` (`self`, `*` or origins; `[]` denies); every powerful feature of `api/security/permissions-policy.ts` is denied otherwise (camera, microphone, geolocation, payment, USB and the other devices, sensors, credentials, clipboard reading, capture, fullscreen, ...). The default names only features Chromium recognises, so the console\'s pages log no header warning; a name you add is sent as given (Chromium warns about one it does not know, other browsers ignore it). `false` sends no `Permissions-Policy` header.',
        { allowFalse: true },
      ),
      sendPermissionsPolicy: leaf(
        'boolean',
        true,
        'Send the `Permissions-Policy` header (`permissionsPolicy: false` does the same).',
      ),
    },
    {
      disableable: true,
      enabled: true,
      rest: 'options',
      doc: '`false` sends no secure headers; any other key is a helmet option.',
    },
  ),
  cors: group({
    origins: leaf('string[]', [], 'Origins allowed to call the API from a browser (`*` for any).'),
    credentials: leaf('boolean', false, 'Allow credentials on cross-origin requests.'),
  }),
  graphql: group(
    {
      path: leaf('string', '/_app/gql', 'Path of the GraphQL endpoint.'),
      introspection: leaf('boolean', (env: Environment) => !inProduction(env), 'Allow introspection queries.'),
      maxDepth: leaf('integer', 10, 'Deepest selection accepted.', { min: 1 }),
      maxCost: leaf('integer', 5000, 'Highest estimated cost accepted (list fields multiply).', { min: 1 }),
      maxAliases: leaf('integer', 15, 'Most aliases in one operation.', { min: 0 }),
      maxTokens: leaf('integer', 2000, 'Most lexical tokens in one document.', { min: 1 }),
      maxBytes: leaf('size', '100kb', 'Largest query document.'),
    },
    { disableable: true, enabled: true, shorthand: 'path', doc: '`false` turns GraphQL off; a string sets the path.' },
  ),
  metrics: group({
    token: leaf(
      'string',
      null,
      "Bearer token of `GET /metrics` (web) and of the worker's metrics listener; unset: no metrics path at all (404). A blank one is refused.",
      {
        nullable: true,
        secret: true,
        // a blank token would be a token any scraper sends without trying (an empty `Authorization`)
        check: (value) =>
          typeof value === 'string' && value.trim() === ''
            ? ['metrics.token (APP_METRICS__TOKEN) is blank: leave it unset to serve no metrics, or set a token']
            : [],
      },
    ),
  }),
  telemetry: group({
    enabled: leaf(
      'boolean',
      null,
      'OpenTelemetry traces (docs/operations.md, "Tracing"). Unset: on when `endpoint` or `tracesEndpoint` is set (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); `true` with no endpoint exports to `http://localhost:4318`. Off: the SDK is not even loaded.',
      { nullable: true },
    ),
    sdkDisabled: leaf(
      'boolean',
      false,
      'The standard `OTEL_SDK_DISABLED`: `true` turns traces off whatever else is set.',
      { envAliases: ['OTEL_SDK_DISABLED'] },
    ),
    endpoint: leaf(
      'string',
      null,
      'Base URL of the OTLP collector, an http or https URL (`http://collector:4318`; with `grpc`, `collector:4317` too); spans go to `<endpoint>/v1/traces` (`<endpoint>` itself with `grpc`).',
      {
        nullable: true,
        // a gateway's credentials may ride in its URL (`?api_key=`, `user:pass@`)
        secret: true,
        envAliases: ['OTEL_EXPORTER_OTLP_ENDPOINT'],
        check: checkTelemetryEndpoint,
      },
    ),
    // a key of its own, not a second alias of `endpoint`: the traces-specific variable is the whole
    // URL of the spans (nothing appended), and it wins over the base one whatever layer sets each
    tracesEndpoint: leaf(
      'string',
      null,
      'Full URL spans are sent to, an http or https URL used as given (`http://collector:4318/v1/traces`, `https://gateway/otlp/spans`): nothing is appended. Wins over `endpoint`; set, it turns traces on as `endpoint` does.',
      {
        nullable: true,
        // a gateway's credentials may ride in its URL (`?api_key=`, `user:pass@`)
        secret: true,
        envAliases: ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'],
        check: checkTelemetryTracesEndpoint,
      },
    ),
    protocol: leaf('enum', 'http/protobuf', 'OTLP transport of the spans.', {
      values: ['http/protobuf', 'http/json', 'grpc'],
      envAliases: ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL'],
    }),
    serviceName: leaf('string', 'app-webhooks', '`service.name` of every span (web, worker and CLI alike).', {
      envAliases: ['OTEL_SERVICE_NAME'],
    }),
    // a receiver's path often is its credential (Slack's and Discord's webhook URLs), and a
    // collector is seldom guarded like the database that keeps the URL
    recordUrlPath: leaf(
      'boolean',
      false,
      "Put a receiver URL's path in the attempt span's `url.full`; `false`: the path is replaced by `/REDACTED` (scheme, host and port stay). The query is never recorded.",
    ),
  }),
  webhooks: group({
    table: leaf('string', 'app_webhooks', 'Table of webhook endpoints.'),
    store: leaf('string', 'default', 'Name of the store (one of `stores`) that holds the table of webhook endpoints.', {
      check: checkStoreName,
    }),
    queue: leaf('string', 'webhooks', 'graphile-worker queue of delivery jobs.'),
    install: leaf(
      'boolean',
      (env: Environment) => !inProduction(env),
      'Create the webhook tables at boot (production runs `app migrate` at release).',
    ),
    allowHttp: leaf('boolean', false, 'Allow plain `http` receiver URLs.'),
    allowPrivate: leaf('boolean', false, 'Allow receivers on private, loopback and other refused addresses.'),
    traceHeaders: leaf(
      'boolean',
      true,
      "Send a W3C `traceparent` header naming the attempt's span with every delivery while the worker traces (`telemetry`); `false`: never.",
    ),
    maxAttempts: leaf('integer', 8, 'Delivery attempts before a delivery is dead.', { min: 1 }),
    retention: leaf(
      'duration',
      '30d',
      'How long done deliveries (with their attempts) and events are kept, from their creation; null keeps them forever. Pruned hourly by the worker and by `app prune`.',
      { nullable: true },
    ),
    deadRetention: leaf(
      'duration',
      '90d',
      'How long dead deliveries are kept, from their creation; null keeps them forever.',
      { nullable: true },
    ),
    timeout: leaf('duration', '10s', 'Whole exchange of one attempt (connect, headers, body).'),
    maxFanout: leaf('integer', 1000, 'Most endpoints one emit may reach.', { min: 1 }),
    disableAfter: leaf(
      'duration',
      '5d',
      'An endpoint whose every delivery attempt has failed for this long (and at least `disableAfterFailures` times) is disabled, the reason kept; checked hourly by the worker. null: never.',
      { nullable: true },
    ),
    disableAfterFailures: leaf(
      'integer',
      20,
      'Failed attempts (since the last success) an endpoint needs besides `disableAfter` to be disabled.',
      { min: 1 },
    ),
    dedupeWindow: leaf(
      'duration',
      '24h',
      "How long an emit's `eventId` (the sender's own id, unique per owner) makes a repeat of it answer the original event and queue nothing.",
    ),
    strictEventTypes: leaf(
      'boolean',
      false,
      'Refuse emits of an event type the catalog does not have, and subscriptions to patterns that match none of its types (422 `APP_WEBHOOK_EVENT_TYPE_UNKNOWN`); off: the catalog only validates the types it has.',
    ),
    maxFanoutBytes: leaf(
      'size',
      '64mb',
      'Most bytes one emit may write: payload size times the endpoints it reaches (every delivery keeps its own body); over it: 413 `APP_WEBHOOK_FANOUT_TOO_LARGE`, nothing written.',
    ),
    concurrency: leaf(
      'integer',
      128,
      'Deliveries one worker process performs at once (they wait on receivers, not on CPU; more at once also means fewer, larger batches of claims and outcomes).',
      { min: 1 },
    ),
    endpointConcurrency: leaf(
      'integer',
      4,
      'Most deliveries in flight at once, across every worker, to an endpoint not known to answer quickly (new, or slow in the last minute); the others wait for a slot without holding a worker. A FIFO endpoint has one; an endpoint answering within half a second is not capped.',
      { min: 1 },
    ),
    backoff: group({
      base: leaf('duration', '10s', 'Delay after the first failed attempt.'),
      factor: leaf('number', 3, 'Growth of the delay per attempt.', { min: 1 }),
      max: leaf('duration', '6h', 'Longest delay.'),
      jitter: leaf('number', 0.2, 'Random spread of each delay (fraction).', { min: 0 }),
    }),
  }),
  worker: group({
    pollInterval: leaf('duration', '2s', 'Fallback poll of the queue (jobs are also announced by LISTEN/NOTIFY).'),
    heartbeat: leaf('duration', '10s', 'How often a worker records that it is alive.'),
    staleAfter: leaf('duration', '45s', 'A worker silent this long is presumed dead and its jobs are unlocked.'),
    outageLimit: leaf(
      'duration',
      '5m',
      'How long a worker waits for the database to come back (restarting its job runner by itself) before it exits non-zero.',
    ),
    metricsPort: leaf(
      'integer',
      null,
      "Port of the worker's listener: `GET /metrics` (behind `metrics.token`), `GET /livez` and `GET /readyz` (no token); unset: none.",
      { nullable: true, min: 0, max: 65535 },
    ),
  }),
});
