/**
 * The configuration reference, docs/configuration.md, generated from the schema
 * (`npm run docs:config` writes it; test/docs/configuration.test.ts checks that the committed page
 * is this output). The prose around the tables is here too, so the whole page has one source.
 */
import { SCHEMA, type Environment, type Group, type Leaf } from './schema.ts';
import { envName } from './env-names.ts';
import { formatDuration } from './units.ts';
import { headingAnchor } from '../docs/heading-anchor.ts';

function formatDefault(leaf: Leaf, env: Environment): string {
  const value = typeof leaf.default === 'function' ? leaf.default(env) : leaf.default;
  if (value === null) return 'unset';
  if (leaf.type === 'duration' && typeof value === 'number') return formatDuration(value);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function describeDefault(leaf: Leaf): string {
  const development = formatDefault(leaf, 'development');
  const production = formatDefault(leaf, 'production');
  const test = formatDefault(leaf, 'test');
  if (development === production && development === test) return `\`${development}\``;
  return `\`${development}\` (test: \`${test}\`, production: \`${production}\`)`;
}

function* rows(node: Group, path: string[]): Generator<string> {
  for (const [key, child] of Object.entries(node.children)) {
    const keyPath = [...path, key];
    const names = [envName(keyPath), ...(child.kind === 'leaf' ? (child.envAliases ?? []) : [])]
      .map((name) => `\`${name}\``)
      .join(', ');
    if (child.kind === 'group') {
      if (child.doc)
        yield `| \`${keyPath.join('.')}\` | on/off | \`${child.enabled === false ? 'false' : 'on'}\` | ${names} | ${child.doc} |`;
      yield* rows(child, keyPath);
    } else {
      yield `| \`${keyPath.join('.')}\` | ${typeOf(child)} | ${describeDefault(child)} | ${names} | ${child.doc} |`;
      // a map's fields, one row each, under a placeholder for the entry's name
      for (const [field, fieldLeaf] of Object.entries(child.entry ?? {})) {
        const fieldKey = [...keyPath, '<name>', field].join('.');
        const presence = fieldLeaf.nullable ? 'unset' : 'required';
        yield `| \`${fieldKey}\` | ${typeOf(fieldLeaf)} | ${presence} | in \`${envName(keyPath)}\` | ${fieldLeaf.doc} |`;
      }
    }
  }
}

const typeOf = (leaf: Leaf) => (leaf.type === 'enum' ? (leaf.values ?? []).join(' \\| ') : leaf.type);

const HEADER = ['| Key | Type | Default | Environment | Meaning |', '|---|---|---|---|---|'];

/** Every key of the schema as one table. */
export function configReference(): string {
  return [...HEADER, ...rows(SCHEMA, [])].join('\n');
}

/** Section titles of the top-level groups; a group not named here is titled by its key. */
const TITLES: Record<string, string> = {
  auth: 'Users, sessions and sign-in',
  mail: 'Mail',
  db: 'Database pool',
  stores: 'Stores',
  api: 'HTTP API',
  rateLimit: 'Rate limits',
  shared: 'Shared backend',
  shutdown: 'Shutdown',
  helmet: 'Secure headers',
  cors: 'CORS',
  graphql: 'GraphQL',
  metrics: 'Metrics',
  telemetry: 'Tracing',
  webhooks: 'Webhooks and delivery',
  worker: 'Worker',
};

/** Prose printed after a section's table. */
const NOTES: Record<string, string> = {
  stores: [
    'In a file: `{"stores": {"registry": {"adapter": "mysql", "url": "mysql://app:…@db:3306/hooks"}},',
    '"webhooks": {"store": "registry"}}`. In the environment, `APP_STORES` holds the same map as JSON',
    '(`APP_STORES=\'{"registry": {"adapter": "disk", "path": "/var/lib/app/hooks"}}\'`). The start is refused',
    "when a store lacks what its adapter needs (`url`, `path`, a `drizzle` store's `dialect`), has an",
    'option its adapter does not use, a `url` its driver does not connect with (`postgres://` or',
    '`postgresql://`; `mysql://` or `mariadb://`; `mssql://`, `sqlserver://` or an ADO.NET string;',
    '`mongodb://` or `mongodb+srv://`; `drizzle` by its dialect), or when `webhooks.store` names no',
    'store. URLs are masked like',
    '`databaseUrl` (all but the password). `/readyz` lists every store under `stores`; a store that',
    'does not answer within 2 s makes it 503, and a request that needs a store that cannot be reached',
    'answers 503 `APP_STORE_UNAVAILABLE` with `Retry-After`.',
  ].join('\n'),
  webhooks: [
    '`webhooks.backoff` with `maxAttempts` 8 gives seven waits of 10 s, 30 s, 90 s, 4.5 min,',
    '13.5 min, 40.5 min and about 2 h (±20 % each): about **3 hours** in total, not the "about',
    'three days" sometimes quoted for these same numbers; we honour the numbers. To retry for',
    'about three days, set `webhooks.maxAttempts` to 19 (seven growing waits, then twelve of 6 h).',
    'Receivers see the same schedule in [receiving.md](receiving.md#when-we-try-again).',
  ].join('\n'),
  telemetry: [
    'The standard variables work without any `telemetry` key: `OTEL_EXPORTER_OTLP_ENDPOINT` (the',
    "collector's base URL; spans go to `<endpoint>/v1/traces`, to `<endpoint>` itself with `grpc`) or",
    '`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the whole URL of the spans, used as given with every',
    'protocol, and winning over the base one when both are set) turns traces on (unless',
    '`OTEL_SDK_DISABLED=true`); `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` wins over',
    '`OTEL_EXPORTER_OTLP_PROTOCOL` likewise. The SDK reads the others itself:',
    '`OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG` (default `parentbased_always_on`),',
    '`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_PROPAGATORS`, `OTEL_BSP_*`.',
    'What is traced: [operations.md](operations.md#tracing).',
  ].join('\n'),
};

const INTRO = `# Configuration

<!-- Generated by \`npm run docs:config\` from shared/config/schema.ts; edit the schema or
shared/config/reference.ts, not this page. -->

One typed, frozen object, resolved once per process from layers: **defaults** (by \`NODE_ENV\`:
\`development\`, \`test\`, \`production\`) < the **JSON file** named by \`APP_CONFIG\` < **environment
variables** < **flags** given by code that starts a process itself (\`runWeb({sources: {flags}})\`,
\`runWorker\`; \`node api/main.ts\`, \`node worker/main.ts\` and \`app\` read no configuration from
their command line). An unknown key or a wrong type stops the start with every problem
listed. \`npx app config\` prints the effective configuration with secrets masked.

Environment naming rule: \`APP_\` + the key path in upper snake case, levels joined by \`__\`
(\`webhooks.allowHttp\` → \`APP_WEBHOOKS__ALLOW_HTTP\`, \`webhooks.backoff.base\` →
\`APP_WEBHOOKS__BACKOFF__BASE\`). Lists accept JSON or a comma list; objects and maps of named
entries (\`stores\`) accept JSON; a feature group accepts \`false\` (\`APP_RATE_LIMIT=false\`).
Durations accept milliseconds or text (\`500ms\`, \`10s\`, \`6h\`, \`2d\`); sizes accept bytes or
text (\`64kb\`, \`1mb\`). \`APP_*\` variables that are not keys are ignored with a warning
(platforms set their own), which names the variable a misspelt one was likely meant to be
(\`APP_WEBHOOK_CONCURENCY\`: did you mean \`APP_WEBHOOKS__CONCURRENCY\`?). The conventional variables \`DATABASE_URL\`, \`PORT\`, \`NODE_ENV\`,
\`LOG_LEVEL\` and \`APP_SECRET\` are read too.

Where a default differs by environment, the table gives the development value first, then the
test and production values.`;

/** The whole of docs/configuration.md. */
export function configPage(): string {
  const general: Group = { kind: 'group', children: {} };
  const sections: { key: string; title: string; group: Group }[] = [{ key: '', title: 'General', group: general }];
  for (const [key, child] of Object.entries(SCHEMA.children)) {
    if (child.kind === 'leaf' && child.type !== 'map') general.children[key] = child;
    else
      sections.push({
        key,
        title: `${TITLES[key] ?? key} (\`${key}\`)`,
        group: { kind: 'group', children: { [key]: child } },
      });
  }
  const contents = sections.map(({ title }) => `- [${title}](#${headingAnchor(title)})`).join('\n');
  const body = sections.map(({ key, title, group }) => {
    const note = NOTES[key] ? `\n\n${NOTES[key]}` : '';
    return `## ${title}\n\n${[...HEADER, ...rows(group, [])].join('\n')}${note}`;
  });
  return `${[INTRO, contents, ...body].join('\n\n')}\n`;
}

if (import.meta.main) {
  const { writeFileSync } = await import('node:fs');
  writeFileSync(new URL('../../docs/configuration.md', import.meta.url), configPage());
}
