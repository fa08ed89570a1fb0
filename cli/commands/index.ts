/**
 * Every command of the `app` CLI, in the order `--help` lists them: its usage, its description,
 * examples for its own `--help`, and the module that defines its options and action. Only the
 * module of the command being run is loaded (cli/run.ts), so `app --help` and a database command
 * pay for nothing else.
 */
import type { CommandAction } from '../command.ts';

export interface CommandEntry {
  /** yargs usage: the name, then its positionals (`webhooks:add <url>`). */
  command: string;
  describe: string;
  /** `[command line, what it does]`, shown by the command's `--help`. */
  examples: readonly (readonly [string, string])[];
  load(): Promise<CommandAction>;
}

/** The name a command line starts with (`webhooks:add`). */
export const commandName = (entry: Pick<CommandEntry, 'command'>) => entry.command.split(' ')[0];

export const COMMANDS: readonly CommandEntry[] = [
  {
    command: 'migrate',
    describe: 'Apply pending database migrations and install the job queue schema (safe to run from several processes)',
    examples: [['$0 migrate', 'what the release step runs at each deploy']],
    load: async () => (await import('./migrate.ts')).migrateCommand,
  },
  {
    command: 'prune',
    describe: 'Remove done and dead deliveries and events past their retention (the worker does it hourly)',
    examples: [['$0 prune --dry-run', 'how much the retention settings would remove now']],
    load: async () => (await import('./prune.ts')).pruneCommand,
  },
  {
    command: 'config',
    describe: 'Print the effective configuration, secrets masked',
    examples: [['$0 config --json', 'the configuration as one JSON document']],
    load: async () => (await import('./config.ts')).configCommand,
  },
  {
    command: 'audit',
    describe:
      'Audit the configuration and stored secrets for security problems (exit 1 on a high finding, 4 when the database cannot be read)',
    examples: [['NODE_ENV=production $0 audit', 'what weakens this production configuration, with remedies']],
    load: async () => (await import('./audit.ts')).auditCommand,
  },
  {
    command: 'secrets:seal',
    describe:
      'Encrypt signing secrets, header values and broker url credentials stored before APP_SECRET was set; move those sealed under a previous secret (APP_PREVIOUS_SECRETS, --from-secret-env) under APP_SECRET',
    examples: [
      [
        'APP_PREVIOUS_SECRETS=<old> $0 secrets:seal',
        'after changing APP_SECRET: move every sealed value under the new one, then remove APP_PREVIOUS_SECRETS',
      ],
      [
        'OLD_APP_SECRET=… $0 secrets:seal --from-secret-env OLD_APP_SECRET',
        'a previous secret read from another variable, besides APP_PREVIOUS_SECRETS',
      ],
    ],
    load: async () => (await import('./secrets-seal.ts')).secretsSealCommand,
  },
  {
    command: 'webhooks:install',
    describe: 'Create the webhook tables and their indexes, and the job queue schema (idempotent)',
    examples: [['$0 webhooks:install', 'make the tables before the first start']],
    load: async () => (await import('./webhooks-install.ts')).webhooksInstallCommand,
  },
  {
    command: 'webhooks:copy',
    describe:
      'Copy the endpoints of another store into the endpoint store (webhooks.store), as they are: what moving the endpoint table needs',
    examples: [
      [
        'APP_WEBHOOKS__STORE=registry $0 webhooks:copy --from default',
        "after pointing webhooks.store at a new store: bring the endpoints over from the service's database",
      ],
    ],
    load: async () => (await import('./webhooks-copy.ts')).webhooksCopyCommand,
  },
  {
    command: 'webhooks:add <url>',
    describe: 'Register a webhook endpoint; prints its id and signing secret',
    examples: [
      [
        "$0 webhooks:add https://example.com/hook --events 'order.*' --owner acme",
        'subscribe a receiver of tenant acme to every order event',
      ],
    ],
    load: async () => (await import('./webhooks-add.ts')).webhooksAddCommand,
  },
  {
    command: 'webhooks:list',
    describe: "List webhook endpoints (all, or one owner's)",
    examples: [['$0 webhooks:list --owner acme', 'the endpoints of tenant acme']],
    load: async () => (await import('./webhooks-list.ts')).webhooksListCommand,
  },
  {
    command: 'webhooks:show <id>',
    describe: 'Show an endpoint; --reveal prints the secrets that still sign (ed25519: their public keys)',
    examples: [['$0 webhooks:show ep_01H… --reveal', 'the endpoint with its signing secrets']],
    load: async () => (await import('./webhooks-show.ts')).webhooksShowCommand,
  },
  {
    command: 'webhooks:status',
    describe: 'List endpoints with their delivery counts (pending, running, done, dead)',
    examples: [['$0 webhooks:status --without-owner', "the operator's own endpoints and their deliveries"]],
    load: async () => (await import('./webhooks-list.ts')).webhooksStatusCommand,
  },
  {
    command: 'webhooks:update <id>',
    describe: 'Change an endpoint: url, events, owner, description, headers (secrets: webhooks:rotate)',
    examples: [['$0 webhooks:update ep_01H… --url https://example.com/v2/hook', 'point an endpoint at a new url']],
    load: async () => (await import('./webhooks-update.ts')).webhooksUpdateCommand,
  },
  {
    command: 'webhooks:disable <id>',
    describe: 'Disable an endpoint: emits no longer reach it',
    examples: [['$0 webhooks:disable ep_01H… --reason "receiver migrating"', 'pause deliveries, keeping the reason']],
    load: async () => (await import('./webhooks-toggle.ts')).webhooksDisableCommand,
  },
  {
    command: 'webhooks:enable <id>',
    describe: 'Enable a disabled endpoint again',
    examples: [['$0 webhooks:enable ep_01H…', 'resume deliveries']],
    load: async () => (await import('./webhooks-toggle.ts')).webhooksEnableCommand,
  },
  {
    command: 'webhooks:remove <id>',
    describe: 'Delete an endpoint with its secrets and delivery records (asks first; --yes does not)',
    examples: [['$0 webhooks:remove ep_01H… --yes', 'delete without asking (scripts)']],
    load: async () => (await import('./webhooks-remove.ts')).webhooksRemoveCommand,
  },
  {
    command: 'webhooks:rotate <id>',
    describe:
      'Give an endpoint a new signing secret (ed25519: a new key, printed as its public key); the old one stops signing at once, or after --grace',
    examples: [['$0 webhooks:rotate ep_01H… --grace 24h', 'new secret; the old one signs too for a day']],
    load: async () => (await import('./webhooks-rotate.ts')).webhooksRotateCommand,
  },
  {
    command: 'webhooks:recover <id>',
    describe: 'Send again every dead delivery of an endpoint created in a time range (--since, --until)',
    examples: [
      ['$0 webhooks:recover ep_01H… --since 2026-11-24T08:00:00Z', "replay what died during this morning's outage"],
    ],
    load: async () => (await import('./webhooks-recover.ts')).webhooksRecoverCommand,
  },
  {
    command: 'webhooks:send <id> <event>',
    describe: 'Queue one event for one endpoint, whether or not it subscribed to it',
    examples: [['$0 webhooks:send ep_01H… ping --data \'{"hello":"world"}\'', 'a test event for one receiver']],
    load: async () => (await import('./webhooks-send.ts')).webhooksSendCommand,
  },
  {
    command: 'webhooks:filter-test',
    describe: 'Try a subscription filter on an event (given as JSON, or a retained one); changes nothing',
    examples: [
      [
        '$0 webhooks:filter-test --filter \'{"data.amount": {"$gte": 100}}\' --event \'{"type": "order.created", "data": {"amount": 42}}\'',
        'says which condition fails for this event',
      ],
    ],
    load: async () => (await import('./webhooks-filter-test.ts')).webhooksFilterTestCommand,
  },
  {
    command: 'events:emit <event>',
    describe: 'Emit an event to every subscribed endpoint of one owner (or, without --owner, of no owner)',
    examples: [
      ['$0 events:emit order.created --owner acme --data \'{"id":42}\'', "fan an event out to tenant acme's endpoints"],
    ],
    load: async () => (await import('./events-emit.ts')).eventsEmitCommand,
  },
  {
    command: 'events:list',
    describe: 'List emitted events, newest first, with their deliveries by state',
    examples: [
      [
        '$0 events:list --owner acme --type order.created --since 2026-11-01',
        "tenant acme's order.created events this month",
      ],
    ],
    load: async () => (await import('./events-read.ts')).eventsListCommand,
  },
  {
    command: 'events:show <id>',
    describe: 'Show an event: its payload and its deliveries by state',
    examples: [['$0 events:show evt_01H…', 'what was emitted, and where it stands']],
    load: async () => (await import('./events-read.ts')).eventsShowCommand,
  },
  {
    command: 'jobs',
    describe: 'Run a worker that performs deliveries (Ctrl-C drains); --once performs what is due and returns',
    examples: [
      ['$0 jobs --once', 'perform the deliveries that are due, then return'],
      ['$0 jobs show msg_01H…', 'a delivery with every attempt'],
    ],
    load: async () => (await import('./jobs.ts')).jobsCommand,
  },
  {
    command: 'jobs:list',
    describe:
      'List deliveries: pending and running by default; --status done, dead or all; filter by endpoint, type, owner, time',
    examples: [
      [
        '$0 jobs:list --status dead --endpoint ep_01H… --since 2026-11-24',
        "one endpoint's dead deliveries since today",
      ],
    ],
    load: async () => (await import('./jobs.ts')).jobsListCommand,
  },
  {
    command: 'jobs:dead',
    describe: 'List dead deliveries (the dead letter queue), newest first',
    examples: [['$0 jobs:dead --json', 'the dead letter queue as JSON']],
    load: async () => (await import('./jobs.ts')).jobsDeadCommand,
  },
  {
    command: 'jobs:show <id>',
    describe: 'Print a delivery: endpoint, event, error and every attempt (also `jobs show <id>`)',
    examples: [['$0 jobs:show msg_01H…', 'what happened to one delivery (the webhook-id a receiver reports)']],
    load: async () => (await import('./jobs.ts')).jobsShowCommand,
  },
  {
    command: 'jobs:retry <id>',
    describe: 'Send a dead delivery again: a new job with the same webhook-id and a new series of attempts',
    examples: [['$0 jobs:retry msg_01H…', 'replay a dead delivery']],
    load: async () => (await import('./jobs.ts')).jobsRetryCommand,
  },
  {
    command: 'jobs:resend <id>',
    describe: 'Send a done or dead delivery again with the same webhook-id (refused while it is pending or running)',
    examples: [['$0 jobs:resend msg_01H…', 'a receiver lost a delivery it had acknowledged']],
    load: async () => (await import('./jobs.ts')).jobsResendCommand,
  },
  {
    command: 'tokens:create',
    describe: 'Make an API token for REST and GraphQL clients; prints it once (only a hash is stored)',
    examples: [
      [
        '$0 tokens:create --name ci --role member --owner acme --expires 90d',
        'a member token of tenant acme for 90 days',
      ],
    ],
    load: async () => (await import('./tokens-create.ts')).tokensCreateCommand,
  },
  {
    command: 'tokens:list',
    describe: 'List API tokens (never their text)',
    examples: [['$0 tokens:list --all', 'revoked and expired tokens too']],
    load: async () => (await import('./tokens-list.ts')).tokensListCommand,
  },
  {
    command: 'tokens:revoke <id>',
    describe: 'Revoke an API token; requests carrying it are refused at once',
    examples: [['$0 tokens:revoke tok_01H…', 'refuse a leaked token from now on']],
    load: async () => (await import('./tokens-revoke.ts')).tokensRevokeCommand,
  },
  {
    command: 'event-types:add <name>',
    describe: 'Add an event type to the catalog: description, JSON Schema of its data, examples',
    examples: [
      [
        "$0 event-types:add order.paid --description 'An order was paid' --schema @schemas/order-paid.json",
        'emits of order.paid must then carry data matching the schema',
      ],
    ],
    load: async () => (await import('./event-types.ts')).eventTypesAddCommand,
  },
  {
    command: 'event-types:list',
    describe: 'List the event-type catalog',
    examples: [['$0 event-types:list --no-deprecated', 'the types in use']],
    load: async () => (await import('./event-types.ts')).eventTypesListCommand,
  },
  {
    command: 'event-types:show <name>',
    describe: 'Show an event type with its schema and examples',
    examples: [['$0 event-types:show order.paid --json', 'the type as one JSON document']],
    load: async () => (await import('./event-types.ts')).eventTypesShowCommand,
  },
  {
    command: 'event-types:update <name>',
    describe: 'Change an event type (description, schema, examples, deprecated)',
    examples: [['$0 event-types:update order.paid --deprecated', 'mark it deprecated']],
    load: async () => (await import('./event-types.ts')).eventTypesUpdateCommand,
  },
  {
    command: 'listen',
    describe:
      'Receive deliveries on this machine: a temporary endpoint, each delivery printed with its verification (needs loopback allowed)',
    examples: [
      [
        "$0 listen --events 'order.*' --forward-to http://localhost:8080/webhooks",
        'watch order events arrive and pass them to your local app',
      ],
      [
        "$0 listen --forward-to 'amqp://guest:guest@127.0.0.1:5672/%2F?routingKey=orders'",
        'publish each delivery to a local RabbitMQ queue, as the worker would (printed as amqp://***@…)',
      ],
    ],
    load: async () => (await import('./listen.ts')).listenCommand,
  },
  {
    command: 'users:create',
    describe: 'Make a user who signs in with a password; prints a one-time set-password link unless --password-stdin',
    examples: [
      [
        '$0 users:create --email ops@example.com --role admin',
        'the first admin; open the printed link to choose its password',
      ],
      [
        'printf \'%s\' "$PW" | $0 users:create --email ann@acme.test --role member --owner acme --password-stdin',
        'a member of tenant acme with a password',
      ],
    ],
    load: async () => (await import('./users-create.ts')).usersCreateCommand,
  },
  {
    command: 'users:list',
    describe: 'List users a page at a time, oldest first (never their passwords)',
    examples: [
      ['$0 users:list --all', 'disabled users too'],
      ['$0 users:list --owner acme --email ann', "tenant acme's users whose email contains ann"],
      ['$0 users:list --limit 50 --page 2', 'users 51 to 100'],
    ],
    load: async () => (await import('./users-list.ts')).usersListCommand,
  },
  {
    command: 'users:disable <user>',
    describe: 'Disable a user: its sessions end and the tokens it minted are revoked, at once',
    examples: [['$0 users:disable ann@acme.test', 'someone left the team']],
    load: async () => (await import('./users-toggle.ts')).usersDisableCommand,
  },
  {
    command: 'users:enable <user>',
    describe: 'Let a disabled user sign in again',
    examples: [['$0 users:enable ann@acme.test', 'back from leave']],
    load: async () => (await import('./users-toggle.ts')).usersEnableCommand,
  },
  {
    command: 'users:reset-link <user>',
    describe: "Print a one-time link that sets the user's password",
    examples: [['$0 users:reset-link ann@acme.test', 'a user who cannot receive the reset mail']],
    load: async () => (await import('./users-toggle.ts')).usersResetLinkCommand,
  },
  {
    command: 'portal:link',
    describe: "Print a single-use link that signs a tenant's member into the console, scoped to that tenant",
    examples: [['$0 portal:link --owner acme', 'a link to hand to tenant acme (works once, for auth.portalLinkTtl)']],
    load: async () => (await import('./portal-link.ts')).portalLinkCommand,
  },
  {
    command: 'portal:end',
    describe: 'End every portal session of a tenant at once; --links spends its unopened portal links too',
    examples: [['$0 portal:end --owner acme --links', "a link of acme's went to the wrong person: end its portal"]],
    load: async () => (await import('./portal-end.ts')).portalEndCommand,
  },
  {
    command: 'sessions:revoke <user>',
    describe: 'End every sign-in session of a user',
    examples: [['$0 sessions:revoke ann@acme.test', 'sign a lost laptop out']],
    load: async () => (await import('./sessions-revoke.ts')).sessionsRevokeCommand,
  },
  {
    command: 'openapi',
    describe: 'Print (or write with --out) the OpenAPI 3.1 description of the HTTP API',
    examples: [['$0 openapi --out openapi.json', 'write the description for client generators']],
    load: async () => (await import('./openapi.ts')).openapiCommand,
  },
];
