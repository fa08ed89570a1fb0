/**
 * The `jobs*` commands (docs/cli.md): `jobs` runs a delivery worker in the
 * foreground (`--once`: what is due, then return), `jobs:list`, `jobs:dead`, `jobs show <id>`
 * (also `jobs:show <id>`) and `jobs:retry <id>`. Ids are delivery ids (`msg_…`).
 */
import type { Argv } from 'yargs';
import type { DeliveryDetails, DeliveryFilters, DeliverySummary } from '../../shared/webhooks/deliveries/index.ts';
import { DELIVERY_STATUSES } from '../../shared/webhooks/deliveries/record.ts';
import type { DeliveryStatus } from '../../shared/webhooks/events/enqueue.ts';
import { defineCommand, type GlobalArgs } from '../command.ts';
import { limitOf, limitOption, ownerOf, ownerOptions, rangeOf, timeOptions } from '../support/filters.ts';
import type { CliContext } from '../context.ts';
import { isoOrDash } from '../support/text-forms.ts';
import { OPERATOR } from '../../shared/access/actor.ts';
import { AppError } from '../../shared/errors/app-error.ts';

/** What the actions need, loaded when one runs (`--help` reads the options alone). */
const core = () => import('../../shared/webhooks/deliveries/index.ts');
const shapes = () => import('../../shared/webhooks/public-shapes.ts');

const oneLine = (text: string | null, max = 160) => {
  if (text === null) return '';
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** One line per delivery. */
function deliveryLine(d: DeliverySummary): string {
  const next =
    d.status === 'pending' && d.nextAttemptAt !== null
      ? `  next ${isoOrDash(d.nextAttemptAt)}`
      : d.waitingSince !== null
        ? `  waiting since ${isoOrDash(d.waitingSince)}`
        : '';
  const error = d.lastError === null ? '' : `  ${oneLine(d.lastError, 120)}`;
  return `${d.id}  ${d.status.padEnd(7)}  ${d.event} -> ${d.endpointId}  attempts ${d.attempts}${next}${error}`;
}

/** The counts of the listing's states: `~` before PostgreSQL's estimate of a state past `api.exactTotal`. */
type ListedCounts = { counts: Record<DeliveryStatus, number>; estimated: readonly DeliveryStatus[] };

/** `pending 3, running 0, done ~120000, dead 2 (~: estimated)`: the deliveries of each state. */
function countsText({ counts, estimated }: ListedCounts): string {
  const count = (status: DeliveryStatus) => `${status} ${estimated.includes(status) ? '~' : ''}${counts[status]}`;
  return `${DELIVERY_STATUSES.map(count).join(', ')}${estimated.length > 0 ? ' (~: estimated)' : ''}`;
}

function listText(deliveries: DeliverySummary[], listed: ListedCounts, what: string): string {
  const header = countsText(listed);
  return deliveries.length === 0 ? `${header}\nno ${what}` : `${header}\n${deliveries.map(deliveryLine).join('\n')}`;
}

/** When a pending delivery goes next: its due time, or since when it waits for its endpoint. */
function pendingNote(d: DeliverySummary): string {
  if (d.status === 'pending' && d.nextAttemptAt !== null) return ` (next attempt ${isoOrDash(d.nextAttemptAt)})`;
  if (d.waitingSince === null) return '';
  return ` (waiting since ${isoOrDash(d.waitingSince)} for its endpoint to take it: a free slot, a slow endpoint being held to webhooks.endpointConcurrency attempts in flight, or its turn in a FIFO line)`;
}

/** Several lines describing one delivery and every attempt. */
export function deliveryText(d: DeliveryDetails): string {
  const endpoint =
    d.endpoint === null
      ? `${d.endpointId} (removed)`
      : `${d.endpoint.id}  ${d.endpoint.url}${d.endpoint.enabled ? '' : `  (disabled: ${d.endpoint.disabledReason ?? 'no reason given'})`}`;
  const lines = [
    `id:        ${d.id}`,
    `status:    ${d.status}${pendingNote(d)}`,
    `queue:     ${d.queue}`,
    `endpoint:  ${endpoint}`,
    `event:     ${d.event} (${d.eventId})${d.owner === null ? '' : `, owner ${d.owner}`}`,
    `created:   ${isoOrDash(d.createdAt)}`,
    `completed: ${isoOrDash(d.completedAt)}`,
    `error:     ${d.lastError ?? '(none)'}`,
    ...(d.queuedAgainAt === null
      ? []
      : [
          `again:     queued again ${isoOrDash(d.queuedAgainAt)} by ${d.queuedAgainBy ?? 'someone not recorded'}, after ${d.attemptsBefore} attempt(s) of earlier runs`,
        ]),
    `attempts:  ${d.attempts}`,
  ];
  for (const a of d.attemptsMade) {
    const answer = a.status === null ? 'no answer' : `status ${a.status}`;
    lines.push(
      `  #${a.attempt}  ${isoOrDash(a.startedAt)}  ${a.durationMs} ms  ${answer}  -> ${a.outcome}${a.error === null ? '' : `  ${oneLine(a.error)}`}`,
    );
    if (a.excerpt) lines.push(`      answer: ${oneLine(a.excerpt)}`);
  }
  return lines.join('\n');
}

const idPositional = <T>(yargs: Argv<T>) =>
  yargs.positional('id', { type: 'string', demandOption: true, describe: 'Delivery id (msg_…, the webhook-id)' });

async function showCommandRun(context: CliContext, args: { id?: string }) {
  const { showDelivery } = await core();
  const { publicDeliveryDetails } = await shapes();
  const details = await showDelivery(
    { sql: context.sql(), config: context.config, endpoints: context.endpoints() },
    OPERATOR,
    String(args.id),
  );
  context.print(publicDeliveryDetails(details), () => deliveryText(details));
}

/** `jobs show <id>` (with a space, unlike `jobs:list`): a subcommand of `jobs`. */
const jobsShowSubcommand = defineCommand({
  command: 'show <id>',
  describe: 'Print a delivery: endpoint, event, error and every attempt',
  builder: (yargs) =>
    idPositional(yargs).example('$0 jobs show msg_01H…', 'a delivery with every attempt') as Argv<
      GlobalArgs & { id: string }
    >,
  run: showCommandRun,
});

/** `jobs [--once]`: a worker in the foreground. */
export const jobsCommand = defineCommand({
  builder: (yargs) =>
    yargs
      // not global (yargs' default): `jobs show <id>` neither lists nor accepts it
      .option('once', {
        type: 'boolean',
        default: false,
        global: false,
        describe: 'Perform the jobs that are due, then return',
      })
      .command(jobsShowSubcommand as never),
  run: async (context, args) => {
    const { installDriverCrashGuard } = await import('../../shared/db/driver-crash-guard.ts');
    const { countListedDeliveries } = await core();
    const log = context.logger('worker');
    installDriverCrashGuard(log);
    // a database behind this code is said in one line (exit 4), where the worker would start and
    // fail every heartbeat and every job (a role without its privileges is refused by the worker,
    // and a database out of reach waited for as the worker waits for it)
    const { MIGRATE_REMEDY, schemaCheck } = await import('../../shared/db/migrate.ts');
    const { isConnectionError } = await import('../../shared/db/connection-errors.ts');
    const behind = await schemaCheck(context.sql())().catch((error: unknown) => {
      if (isConnectionError(error)) return undefined;
      throw error;
    });
    if (behind?.endsWith(MIGRATE_REMEDY))
      throw new AppError(503, behind, { code: 'APP_DATABASE_NOT_MIGRATED', data: { reason: behind } });
    if (args.once) {
      const { runWorkerOnce } = await import('../../worker/runner.ts');
      const { tasks } = await import('../../worker/tasks/index.ts');
      await runWorkerOnce({ config: context.config, log, telemetry: context.telemetry }, tasks);
      // counted as the listings count (exact up to api.exactTotal, else estimated): a table of
      // millions is not read through to print a summary
      const listed = await countListedDeliveries({ sql: context.sql(), config: context.config }, OPERATOR, {});
      context.print(
        { once: true, ...listed },
        () => `performed the jobs that were due; deliveries now: ${countsText(listed)}`,
      );
      return;
    }
    const { serveWorker } = await import('../../worker/run.ts');
    const served = await serveWorker({ config: context.config, log, telemetry: context.telemetry });
    const code = await served.stopped;
    if (code !== 0) context.exit(code);
  },
});

const filterOptions = {
  queue: { type: 'string', describe: 'Only deliveries of this queue (webhooks.queue when emitted)' },
  endpoint: { type: 'string', describe: 'Only deliveries to this endpoint (ep_…)' },
  type: { type: 'string', describe: 'Only deliveries of events of this exact type' },
  ...ownerOptions,
  ...timeOptions,
  limit: limitOption,
} as const;

interface FilterArgs {
  queue?: string;
  endpoint?: string;
  type?: string;
  owner?: string;
  'without-owner'?: boolean;
  since?: string;
  until?: string;
  limit: number;
}

/**
 * The newest deliveries in `statuses` matching the filters, through the one delivery listing of
 * REST and GraphQL, and the deliveries of each state the same filters select (the header).
 */
async function listed(context: CliContext, args: FilterArgs, statuses: readonly DeliveryStatus[]) {
  const { countListedDeliveries, listDeliveries } = await core();
  const deps = { sql: context.sql(), config: context.config };
  const filters: DeliveryFilters = {
    ...rangeOf(args),
    ...(args.queue === undefined ? {} : { queue: args.queue }),
    ...(args.endpoint === undefined ? {} : { endpoint: args.endpoint }),
    ...(args.type === undefined ? {} : { type: args.type }),
    ...(ownerOf(args) === undefined ? {} : { owner: ownerOf(args) }),
  };
  const perPage = limitOf(args.limit);
  const [page, counts] = await Promise.all([
    listDeliveries(deps, OPERATOR, { ...filters, statuses, page: 1, perPage }),
    countListedDeliveries(deps, OPERATOR, filters),
  ]);
  return { deliveries: page.records, counts };
}

/** `jobs:list [--status] [--queue] [--endpoint] [--type] [--owner | --without-owner] [--since] [--until] [--limit]`. */
export const jobsListCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .options({
        status: {
          type: 'string',
          array: true,
          choices: [...DELIVERY_STATUSES, 'all'],
          describe: 'States to list (repeatable; default pending and running)',
        },
        ...filterOptions,
      })
      .conflicts('owner', 'without-owner'),
  run: async (context, args) => {
    const given = (args.status ?? []) as string[];
    const statuses =
      given.length === 0
        ? (['pending', 'running'] as const)
        : given.includes('all')
          ? DELIVERY_STATUSES
          : (given as DeliveryStatus[]);
    const { publicDelivery } = await shapes();
    const { deliveries, counts } = await listed(context, args, statuses);
    context.print(deliveries.map(publicDelivery), () => listText(deliveries, counts, 'deliveries in these states'));
  },
});

/** `jobs:dead [filters]`: the dead letter queue. */
export const jobsDeadCommand = defineCommand({
  builder: (yargs) => yargs.options(filterOptions).conflicts('owner', 'without-owner'),
  run: async (context, args) => {
    const { publicDelivery } = await shapes();
    const { deliveries, counts } = await listed(context, args, ['dead']);
    context.print(deliveries.map(publicDelivery), () => listText(deliveries, counts, 'dead deliveries'));
  },
});

/** `jobs:show <id>`: the same as `jobs show <id>`. */
export const jobsShowCommand = defineCommand({
  builder: (yargs) => idPositional(yargs) as Argv<GlobalArgs & { id: string }>,
  run: showCommandRun,
});

/** `jobs:retry <id>`: a dead delivery is sent again (a new job, the same webhook-id). */
export const jobsRetryCommand = defineCommand({
  builder: (yargs) => idPositional(yargs) as Argv<GlobalArgs & { id: string }>,
  run: async (context, args) => {
    const { retryDelivery } = await core();
    const { publicDelivery } = await shapes();
    const delivery = await retryDelivery(
      { sql: context.sql(), config: context.config, log: context.log },
      OPERATOR,
      String(args.id),
    );
    context.print(
      publicDelivery(delivery),
      () => `${delivery.id} queued again (attempts so far ${delivery.attempts}); a worker will send it`,
    );
  },
});

/** `jobs:resend <id>`: a done or dead delivery is sent again (a new job, the same webhook-id). */
export const jobsResendCommand = defineCommand({
  builder: (yargs) => idPositional(yargs) as Argv<GlobalArgs & { id: string }>,
  run: async (context, args) => {
    const { resendDelivery } = await core();
    const { publicDelivery } = await shapes();
    const delivery = await resendDelivery(
      { sql: context.sql(), config: context.config, log: context.log },
      OPERATOR,
      String(args.id),
    );
    context.print(
      publicDelivery(delivery),
      () =>
        `${delivery.id} queued again (attempts so far ${delivery.attempts}); a worker will send it with the same webhook-id`,
    );
  },
});

/** Every `jobs*` command, in the order `--help` lists them. */
