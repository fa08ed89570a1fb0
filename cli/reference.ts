/**
 * The CLI reference, docs/cli.md, generated from the command table (commands/index.ts) and each
 * command's yargs options (`npm run docs:cli` writes it; test/docs/cli.test.ts checks that the
 * committed page is this output). Each command's builder is run against a recorder that stands in
 * for yargs and keeps what it declares (positionals, options, conflicts, subcommands; declared.ts),
 * so the page says what the parser accepts. What a command's options cannot say (what it prints, what it
 * refuses) is in NOTES below.
 */
import { COMMANDS, commandName } from './commands/index.ts';
import { type Builder, type Declared, declared, type OptionSpec } from './declared.ts';
import { headingAnchor } from '../shared/docs/heading-anchor.ts';

/** What a command's options cannot say, from what the command does. */
const NOTES: Record<string, string> = {
  prune:
    'Removes done and dead deliveries and events past `webhooks.retention` and `webhooks.deadRetention`, never a pending or running delivery, and prints what it removed ([operations.md](operations.md#retention)). With `--json`: `done`, `dead`, `events` and `attempts` (how many went, or would), `dryRun`, `cutoffs` (`done`, `dead`, `events`: what was created before it goes; null: kept forever), `timings` (`partitions`, `rows`, `events`, `longestStep`, in whole milliseconds), `steps`, `remaining` (work left for the next prunes) and `skipped` (another prune was running, so this one removed nothing: one prune runs at a time, [operations.md](operations.md#retention)).',
  audit:
    'Each finding with its severity, the setting and the remedy; exit 1 when a high one stands ([operations.md](operations.md#security-audit-and-production-guards)). When `DATABASE_URL` is set but the database cannot be read (unreachable, or not migrated: run `app migrate`), the findings of the configuration are printed with the reason and the exit code is 4, unless a high finding stands.',
  'secrets:seal':
    'Encrypts the signing secrets stored before `APP_SECRET` was set; endpoint header values and the credentials in broker URLs are re-sealed with them. After changing `APP_SECRET` (the old one in `APP_PREVIOUS_SECRETS`: [operations.md](operations.md#security-audit-and-production-guards)), moves every value sealed under a previous secret under the new one and says how many it moved; `--from-secret-env VAR` adds the secret in the environment variable `VAR` to those it opens with (one variable; more previous secrets go in `APP_PREVIOUS_SECRETS`). Safe to run again: a second run moves nothing; exit 1 if some value opens with none of them.',
  'webhooks:add <url>':
    "Prints the endpoint's id and its `whsec_` secret, shown again only by `webhooks:show --reveal`; with `--signing ed25519`, its `whpk_` public key instead (deliveries then carry `v1a,` Ed25519 signatures: [receiving.md](receiving.md#ed25519-endpoints-v1a-signatures)).",
  'webhooks:show <id>':
    'For an `ed25519` endpoint `--reveal` lists the `whpk_` public keys receivers verify with; its private keys are never printed.',
  'webhooks:update <id>':
    'Each setting has its clearing option (`--no-filter`, `--clear-owner`, `--clear-description`, `--clear-headers`, `--clear-rate-limit`, `--no-fifo`); see fairness, per-endpoint rate limits and FIFO endpoints in [reliability.md](reliability.md).',
  'webhooks:remove <id>':
    'Deletes the endpoint with its secrets and delivery records. It asks for confirmation on a terminal, and needs `--yes` without one; a confirmation not given (any answer but `y` or `yes`, Ctrl-C or Ctrl-D at the question) removes nothing and exits 2 (`nothing removed: not confirmed`).',
  'webhooks:rotate <id>':
    'Prints the new signing secret as `secret: whsec_…` (for an `ed25519` endpoint a new key, printed as `public key: whpk_…`; `--json` gives it as `secret` beside `signing`). The old one stops at once, or signs too until the grace ends.',
  'webhooks:recover <id>': 'The same as `POST /api/v1/webhooks/:id/recover`: at most 1,000 dead deliveries a run.',
  'events:emit <event>':
    "Reaches every subscribed, enabled endpoint of that owner (no owner: the endpoints without owner), and prints the event's id and its deliveries; with `--json`, what `POST /api/v1/events` answers (less its links): `{externalId, type, owner, createdAt, deliveryCount, deliveryIds, duplicate, filteredOut}`, `externalId` null when no endpoint subscribes (nothing is written). `--event-id` is your own id of the event: repeated within `webhooks.dedupeWindow` (24 h), the original event and its deliveries are printed (`duplicate: true`) and nothing is queued ([events.md](events.md#emit-deduplication)).",
  jobs: 'The worker the `worker` process runs, in the foreground. With the database out of reach `--once` exits 4 at once; without it the worker rides the outage out as the `worker` process does, a warning at each beat, and exits 4 once the database has not answered for `worker.outageLimit` (5 minutes; [reliability.md](reliability.md#worker-database-outages)).',
  'jobs:list':
    "The same filters as `GET /api/v1/deliveries`. The first line counts the deliveries of each state those filters select (`--status` aside); past `api.exactTotal` of a state the count is PostgreSQL's estimate, marked `~`.",
  'jobs:dead': 'The first line counts the deliveries of each state the filters select, as `jobs:list` does.',
  'jobs:retry <id>': 'Same `webhook-id`, a new series of attempts.',
  'jobs:resend <id>':
    'Same `webhook-id` and body, as `POST /api/v1/deliveries/:id/resend` and GraphQL `resendWebhookDelivery`; refused (409 `APP_WEBHOOK_DELIVERY_IN_FLIGHT`) while the delivery is pending or running.',
  'webhooks:filter-test':
    'Answers `matches` and `failed` (with `--json`, `{"matches", "failed"}`, REST\'s answer less its link). `--event` is refused exactly when an emit of it would be, by the emit\'s code: a `type` that is no event name or a `timestamp` no emit can stamp (not ISO 8601, a day that does not exist, outside the years 0001 to 9999) is `APP_WEBHOOK_EVENT_INVALID`, `data` the catalog\'s schema refuses `APP_WEBHOOK_EVENT_DATA_INVALID` ([webhooks-api.md](webhooks-api.md#4-filters)): one line on stderr and exit 1. The filter sees the timestamp as a delivery\'s body writes it, UTC with milliseconds. It reads the database: the catalog for `--event`, the event for `--event-id`.',
  'tokens:create': 'The token is printed once; only its digest is stored.',
  'tokens:revoke <id>':
    'Refused at once in every web process ([accounts-and-console.md](accounts-and-console.md#revocation-and-the-token-cache)).',
  'event-types:update <name>':
    'Takes the options of `event-types:add`; `--no-schema` removes the schema ([events.md](events.md#event-type-catalog)).',
  listen:
    "Starts a local receiver on a free loopback port and a temporary endpoint pointing at it, removed on Ctrl-C or SIGTERM (one left by a killed `listen` of this host is removed at the next start). Each delivery is printed with its signature check (with `--json`, one JSON document a line: `listening`, then `delivery` lines, then `stopped`), and with `--forward-to` passed on to `URL`, whose answer becomes the receiver's; a broker URL (`amqp://user:pass@host/vhost?routingKey=…`, `nats://…/<subject>`, `mqtt://…/<topic>`, `redis://…/0?stream=…`) gets each delivery published by the worker's own sender (204 once acknowledged, 502 with the reason otherwise), and is printed with its credentials as `***`. It needs loopback delivery allowed (`npm start -- --allow-local`, or `APP_WEBHOOKS__ALLOW_HTTP` and `APP_WEBHOOKS__ALLOW_PRIVATE` for the CLI and the worker), and exits 2 with the remedy otherwise. Any failure once started (the endpoint refused, say by `webhooks.strictEventTypes`; the receiver's port taken) closes the receiver and ends the run at once with the one-line reason and the exit code of its kind. It holds a database connection of its own (`app-listen` in `pg_stat_activity`), so a lost database (a restart, a terminated session, a network that stops answering within 10 s) is said at once on stderr (`app listen: lost its database connection to HOST:PORT (why); reconnecting for up to 5m, …`); it reconnects at once, then after 250 ms doubling to at most 5 s, and once back says so after reading its endpoint again (`app listen: database connection back after 1.2s; endpoint ep_… still registered and enabled, no delivery missed …`, or that it was disabled or removed meanwhile). The same connection listens for changes to endpoints, so its endpoint disabled, enabled again or removed by someone else (an operator, the worker on a 410) is said at once on stderr (`app listen: endpoint ep_… was disabled (…)`, `… enabled again, …`, `… was removed: …`); once removed, Ctrl-C stops it without removing it again. Deliveries need no connection of the command's own: the worker makes them, and retries those it could not make, so none is missed while the endpoint stays. Not back within `--reconnect-timeout`, it exits 4 (`app: cannot reach the database at HOST:PORT (DATABASE_URL): the connection was lost and not back within 5m: …`), its endpoint left for the next start to remove. Ctrl-C or SIGTERM still stops it with exit 0 (4 when the database is away and the endpoint cannot be removed).",
  'users:create':
    'The password is read from standard input with `--password-stdin`: one line, refused (exit 2, no user made) when empty, of several lines or longer than 4096 bytes; otherwise a one-time set-password link is printed, valid `auth.inviteTtl`, on `publicUrl`; unset, on the web process of the running `npm start` (its URL recorded in `.data/postgres.json`) when the CLI uses its database, else on `http://localhost:<port>`.',
  'users:disable <user>': "Ends the user's sessions and revokes the tokens it minted, at once.",
  'portal:link':
    'The link works once, for `auth.portalLinkTtl`, and signs a member (or viewer) of the tenant into the console, scoped to it ([accounts-and-console.md](accounts-and-console.md#tenant-portal-links)); only its digest is stored.',
  'portal:end':
    "Ends the tenant's portal sessions in every web process at once: their next request is refused as a signed-out one's ([accounts-and-console.md](accounts-and-console.md#ending-a-tenants-portal-sessions)). Users' sessions are not touched (`users:disable` ends those). Prints how many sessions ended (and with `--links` how many links were spent); with `--json`, `{owner, sessions, links}`. An owner no endpoint could have is refused (`APP_WEBHOOK_OWNER_INVALID`, exit 1).",
  openapi:
    'One JSON document, or with `--out` the file written and its path printed ([http-api.md](http-api.md#openapi-description)).',
};

const INTRO = `# The \`app\` command line

<!-- Generated by \`npm run docs:cli\` from cli/commands/ (cli/reference.ts); edit the commands or
the generator, not this page. -->

\`npx app <command>\` (package.json \`bin\`). Every command has \`--help\` with an example; every
command that prints records accepts \`--json\` and then prints exactly one JSON document on
stdout, with the field names of the REST API and GraphQL (\`externalId\` for a record's own id,
\`endpointId\`, \`type\`, \`attemptCount\`, \`deliveryCounts\`; see
[webhooks-api.md](webhooks-api.md#public-shapes-one-name-per-field-in-rest-graphql-openapi-and-the-cli);
tokens as \`/api/v1/tokens\` answers them; an emit as \`POST /api/v1/events\` does). Users are
printed as the account routes answer them (sign-in, page objects: the \`User\` schema of the
OpenAPI document), their id as \`id\`.
With no database configured (\`DATABASE_URL\`, or \`databaseUrl\` in the \`APP_CONFIG\` file) and outside
production, the CLI uses the embedded database a running \`npm start\` recorded in
\`.data/postgres.json\`, and prints its links (set-password, portal) on that \`npm start\`'s web
process unless \`publicUrl\` is set. The CLI acts as an admin of every tenant.

- \`app --help\` lists the commands, \`app <command> --help\` shows one with its example.
- \`app --version\` (\`-v\`) prints the version.
- \`app completion >> ~/.bashrc\` installs shell completion (bash and zsh).
- A boolean option \`--x\` is turned off with \`--no-x\`. An option that takes a value has no
  \`--no-x\` unless its command lists one (\`--no-filter\`, \`--no-schema\`), and is given its value:
  \`--no-events\`, or \`--owner\` with nothing after it, is a usage error, as is a number that is
  not a whole number in decimal digits (\`--limit 0x10\`, \`1e3\`, \`' 12'\`, \`2.5\`; a blank one
  included: \`--port ''\` is no port 0; one past 9007199254740991 either way, which would be read
  as another), a value not one of the option's choices, an option of one
  value given twice, a boolean given a value other than \`=true\` or \`=false\` (\`--dry-run=1\`), and
  a required argument given blank (\`app jobs:show ""\`: \`<id> is empty: give the delivery id …\`).

**Calling it fast.** \`npx\` costs about a second per command before the CLI even starts. Call
the command's own file instead: npm links a package's \`bin\` into the \`node_modules/.bin\` of
the projects that install it, not of the project itself, so \`app\` is not there; the project's
Node 24 is. In the project's folder, after \`npm install\`:

\`\`\`sh
export PATH="$PWD/node_modules/.bin:$PATH"   # the project's Node 24 first (cli/bin.js runs on \`node\`)
alias app="$PWD/cli/bin.js"                 # a script: app() { /path/to/project/cli/bin.js "$@"; }
\`\`\`

Then \`app webhooks:list\` answers in about 0.15 s and \`app --help\` in 0.1 s (\`npm run bench:cli\`
measures this way of calling it, [BENCHMARKS.md](../BENCHMARKS.md#cli-start-up)).

## Failures and exit codes

One line on stderr starting \`app: \`, after the command's usage when its options cannot be read
as declared; with \`--json\`, one JSON document \`{"error": {"code", "message"}}\` on stdout
instead. The exit code says what kind of failure it was:

| Exit | Meaning | \`code\` |
|---|---|---|
| 0 | done | |
| 1 | refused or failed: input the service refuses (a URL, event names, JSON in \`--data\`, \`--filter\` or \`--schema\`, a header, a time, a duration that is not one or too long), a conflict, an invalid configuration (a \`DATABASE_URL\` that is not a URL included), a PostgreSQL older than 15 (the line names its version), a high audit finding | the error's \`APP_*\` code, \`APP_CONFIG_INVALID\`, \`APP_DATABASE_UNSUPPORTED\`, \`APP_CLI_FAILED\` |
| 2 | wrong usage: unknown command or option, a missing, blank or invalid argument, an option given no value, a number not in decimal digits, not one of the option's choices or out of its range (\`--limit\`, \`--port\`), \`--no-x\` of an option that takes a value, an option of one value given twice, a boolean given a value (\`--dry-run=yes\`), a negative \`--grace\`, nothing to change, a confirmation not given | \`APP_CLI_USAGE\` |
| 3 | the record named does not exist | e.g. \`APP_WEBHOOK_NOT_FOUND\` |
| 4 | try again later: the database (or a store) cannot be reached (a connection attempt gives up after 5 s without an answer), is not migrated (a store not installed), or refuses the work for now (read-only, out of resources, a lock or time limit); the message names \`DATABASE_URL\`'s host, what to run, or for a refusal the server's words and SQLSTATE; \`audit\` prints its findings first | \`APP_DATABASE_UNAVAILABLE\`, \`APP_DATABASE_READ_ONLY\`, \`APP_DATABASE_BUSY\`, \`APP_DATABASE_NOT_MIGRATED\`, \`APP_STORE_UNAVAILABLE\`, \`APP_STORE_NOT_INSTALLED\`, \`APP_WEBHOOK_QUEUE_MISSING\` |
| 130, 143 | stopped by SIGINT (Ctrl-C) or SIGTERM: the process ends killed by that signal, which a shell reports as 128 + its number; see [In scripts](#in-scripts) | \`APP_CLI_INTERRUPTED\` |

Every \`APP_*\` code is listed in [http-api.md](http-api.md#error-codes).

## In scripts

What a shell script, a cron job or a CI step can rely on:

- **Output.** stdout holds only what the command prints: with \`--json\`, one JSON document
  (\`listen\`: one a line), which \`jq\` reads whole. Warnings (an \`APP_\` variable that is no
  setting, a deprecation) and log lines go to stderr.
- **A reader that stops early** (\`app jobs:list | head -1\`, \`app webhooks:list --json | head -c 10\`):
  the command stops at once without a word, exiting 0 unless it had failed already. \`git\` and
  \`ls\` stop as quietly but killed by SIGPIPE, which a shell reports as 141 and which fails a
  \`set -o pipefail\` pipeline; \`app\` does not. A closed stderr is written no more, and the
  command ends with its own exit code.
- **No terminal.** Without one, nothing is coloured or redrawn and nothing is asked:
  \`webhooks:remove\` needs \`--yes\` then, and exits 2 without it. On a terminal, \`NO_COLOR\` (set,
  not empty) turns the log lines' colours off. No other command asks anything; \`prune\` has
  \`--dry-run\` to see what it would remove.
- **Standard input** is read only by \`users:create --password-stdin\`: one line (its \`\\n\` or
  \`\\r\\n\` dropped). Nothing there (an unset variable, a closed stdin), more than one line, or
  more than 4096 bytes is a usage error, exit 2, and no user is made.
- **Signals.** SIGINT (Ctrl-C) or SIGTERM (\`timeout\`, a cancelled CI job) cancels on the server the
  statements the command is running, so none is left behind to finish later (a write waiting on
  a lock would otherwise be made once the lock is free); the command says \`app: interrupted by
  SIGTERM; …\` (with \`--json\`, \`APP_CLI_INTERRUPTED\` on stdout) and the process ends killed by the
  signal, within 2 s: the shell reports 130 or 143, and a script looping over \`app\` stops at
  Ctrl-C. A second signal ends it at once. \`migrate\` applies each migration (each step of one
  cut into steps) in a transaction: one stopped midway is rolled back, and the next run goes on
  from there. \`listen\` and \`jobs\`
  give the first signal their own meaning (remove the endpoint, drain the worker).
- **The database.** Unreachable, or refusing the credentials: one line naming the host and where
  the URL came from, never the password, and exit 4 (\`APP_DATABASE_UNAVAILABLE\`). A connection
  attempt gives up after 5 s without an answer (\`migrate\`, which tries twice, after 10 s).
  Unset: exit 4 with the remedy, and in production exit 1 (the production guard refuses to run
  without \`DATABASE_URL\`).`;

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function typeOf(spec: OptionSpec): string {
  const base = spec.choices
    ? spec.choices.map((choice) => `\`${String(choice)}\``).join(', ')
    : (spec.type ?? 'string');
  return spec.array ? `${base}, repeatable` : base;
}

function defaultOf(spec: OptionSpec): string {
  if (spec.default === undefined || spec.default === false) return '';
  return `\`${typeof spec.default === 'string' ? spec.default : JSON.stringify(spec.default)}\``;
}

/** The table of a command's positionals and options. */
function optionTable(usage: string, found: Declared): string[] {
  const required = new Set([...usage.matchAll(/<([^>]+)>/g)].map((match) => match[1]));
  const lines: string[] = [];
  for (const [name, spec] of found.positionals) {
    const mark = required.has(name) || spec.demandOption ? ', required' : '';
    lines.push(`| \`<${name}>\`${mark} | ${cell(typeOf(spec))} | ${defaultOf(spec)} | ${cell(spec.describe ?? '')} |`);
  }
  for (const [name, spec] of found.options) {
    const aliases = (typeof spec.alias === 'string' ? [spec.alias] : (spec.alias ?? []))
      .map((alias) => `, \`-${alias.length > 1 ? '-' : ''}${alias}\``)
      .join('');
    const mark = spec.demandOption ? ', required' : '';
    lines.push(
      `| \`--${name}\`${aliases}${mark} | ${cell(typeOf(spec))} | ${defaultOf(spec)} | ${cell(spec.describe ?? '')} |`,
    );
  }
  if (lines.length === 0) return ['No arguments or options besides `--json`.'];
  return ['| Argument or option | Type | Default | Meaning |', '|---|---|---|---|', ...lines];
}

function section(
  level: string,
  usage: string,
  describe: string,
  found: Declared,
  examples: readonly (readonly [string, string])[],
  note?: string,
): string {
  const parts = [`${level} \`${usage}\``, describe.endsWith('.') ? describe : `${describe}.`];
  if (note) parts.push(note);
  parts.push(optionTable(usage, found).join('\n'));
  if (found.conflicts.length)
    parts.push(`Not together: ${found.conflicts.map(([a, b]) => `\`--${a}\` and \`--${b}\``).join('; ')}.`);
  if (examples.length) {
    const width = Math.max(...examples.map(([line]) => line.replace(/\$0/g, 'app').length));
    parts.push(
      [
        '```sh',
        ...examples.map(([line, what]) => `${line.replace(/\$0/g, 'app').padEnd(width)}  # ${what}`),
        '```',
      ].join('\n'),
    );
  }
  return parts.join('\n\n');
}

/** The whole of docs/cli.md. */
export async function cliPage(): Promise<string> {
  const overview = ['## Commands', '', '| Command | What it does |', '|---|---|'];
  const sections: string[] = [];
  for (const entry of COMMANDS) {
    const action = await entry.load();
    const found = declared(action.builder as Builder);
    overview.push(`| [\`${entry.command}\`](#${headingAnchor(entry.command)}) | ${cell(entry.describe)} |`);
    sections.push(section('###', entry.command, entry.describe, found, entry.examples, NOTES[entry.command]));
    for (const sub of found.subcommands) {
      const usage = `${commandName(entry)} ${sub.command}`;
      overview.push(`| [\`${usage}\`](#${headingAnchor(usage)}) | ${cell(sub.describe)} |`);
      sections.push(section('###', usage, sub.describe, sub.declared, []));
    }
  }
  return `${[INTRO, overview.join('\n'), ...sections].join('\n\n')}\n`;
}

if (import.meta.main) {
  const { writeFileSync } = await import('node:fs');
  writeFileSync(new URL('../docs/cli.md', import.meta.url), await cliPage());
}
