/**
 * `app listen [--events <patterns>] [--owner <o>] [--forward-to <url>] [--port <n>] [--json]`:
 * watch deliveries arrive on this machine, as `stripe listen` does. It starts a receiver on a
 * free loopback port, registers a temporary endpoint pointing at it, prints every delivery with
 * its verification result (one JSON document a line with --json), optionally forwards it to a
 * local url and answers with that url's answer, and removes the endpoint on Ctrl-C or SIGTERM.
 * The url forwarded to may name a broker (amqp, nats, mqtt, redis): each delivery is then
 * published there by the worker's own sender (worker/delivery/send.ts), and the url is shown with
 * its credentials masked.
 *
 * Temporary endpoints are marked in their description (`app listen: pid <pid> on <host>`); at
 * start, those of this host whose process is gone (a `listen` that was killed) are removed.
 *
 * While it runs it holds a connection of its own (`app-listen` in pg_stat_activity;
 * cli/support/database-watch.ts), so that losing the database is said at once on stderr rather
 * than met as silence: one line when the connection is lost, reconnection with a backoff for up
 * to `--reconnect-timeout`, and one line when it is back, after reading its endpoint again (what
 * it can have missed meanwhile: the endpoint removed or disabled). Deliveries need no connection
 * of the command's own (the worker makes them, and retries those it could not make), so none is
 * lost while the endpoint stays. Not back within the bound, the run fails as the database
 * unreachable (exit 4), its endpoint left for the next start to remove.
 *
 * However the run ends (stopped, or failing once its receiver listens: the endpoint refused, the
 * database gone), it closes the receiver and takes its signal listeners off before the failure
 * reaches cli/app.ts, so the process exits with the reason and the code of its kind instead of
 * being held open by the receiver.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { verify } from '../../shared/webhooks/signing.ts';
import { OPERATOR } from '../../shared/access/actor.ts';
import { defineCommand } from '../command.ts';
import type { CliContext } from '../context.ts';
import { databaseHost, UsageError } from '../failure.ts';
import { isAppError } from '../../shared/errors/app-error.ts';
import { terminalText } from '../support/text-forms.ts';
import { isBrokerUrl } from '../../shared/webhooks/destinations/kinds.ts';
import { maskUrl, scrubCredentials } from '../../shared/webhooks/destinations/credentials.ts';
import type { Senders } from '../../worker/delivery/send.ts';
import { formatDuration, parseDuration } from '../../shared/config/units.ts';
import type { DatabaseWatch } from '../support/database-watch.ts';
import type { WebhookDeps } from '../../shared/webhooks/deps.ts';

/** What the action needs, loaded when it runs (`--help` reads the options alone). */
const endpoints = () => import('../../shared/webhooks/endpoints/index.ts');
const helpers = () => import('../support/webhooks.ts');

const MARKER = /^app listen: pid (\d+) on ([^\s,]+)/;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Removes the temporary endpoints of `listen` processes of this host that are gone; how many. */
export async function removeStaleListeners(context: CliContext): Promise<string[]> {
  const { listEndpoints, removeEndpoint } = await endpoints();
  const { webhookDeps } = await helpers();
  const deps = webhookDeps(context);
  const { records } = await listEndpoints(deps, OPERATOR);
  const stale = records.filter((endpoint) => {
    const match = MARKER.exec(endpoint.description ?? '');
    return match !== null && match[2] === hostname() && !alive(Number(match[1]));
  });
  for (const endpoint of stale) await removeEndpoint(deps, OPERATOR, endpoint.id);
  return stale.map((endpoint) => endpoint.id);
}

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** Headers worth passing on to the forwarded url (not the hop-by-hop ones). */
const FORWARDED = /^(content-type|user-agent|webhook-.*)$/i;

/**
 * `stopped` resolves at the first SIGINT or SIGTERM. The listeners go at that signal (a second
 * Ctrl-C has its default effect, should removing the endpoint hang; the next start removes it) or
 * at `remove()`, which every way the command ends calls, so none outlives the run.
 */
function stopSignal(): { stopped: Promise<void>; remove(): void } {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const remove = () => {
    for (const signal of signals) process.off(signal, listener);
  };
  const listener = () => {
    remove();
    stop();
  };
  for (const signal of signals) process.on(signal, listener);
  return { stopped, remove };
}

/** Closes the receiver with its open connections, when it listens; never throws. */
async function closeReceiver(server: Server): Promise<void> {
  if (!server.listening) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** What the receiver prints of each delivery: the JSON document and the text line. */
type PrintDelivery = (document: Record<string, unknown>, text: string) => void;

/** The answer of one forwarded delivery: relayed as the receiver's own. */
interface Forwarded {
  status: number;
  answer?: Buffer;
  contentType?: string | null;
  error?: string;
}

/** Forwards to an HTTP url with fetch, the receiver's answer relayed as it is. */
async function forwardToHttp(url: string, headers: Record<string, string>, body: Buffer): Promise<Forwarded> {
  try {
    const forwarded = await fetch(url, { method: 'POST', headers, body, redirect: 'manual' });
    return {
      status: forwarded.status,
      answer: Buffer.from(await forwarded.arrayBuffer()),
      contentType: forwarded.headers.get('content-type'),
    };
  } catch (error) {
    return { status: 502, error: (error as Error).message };
  }
}

/**
 * Forwards to a broker url as the worker does (worker/delivery/send.ts): 204 once the broker
 * acknowledged the message, 502 with the reason otherwise (the reason never shows the credentials).
 */
async function forwardToBroker(
  senders: Senders,
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  timeoutMs: number,
): Promise<Forwarded> {
  const { sendDelivery } = await import('../../worker/delivery/send.ts');
  const result = await sendDelivery(senders, {
    url,
    headers,
    body: body.toString('utf8'),
    timeoutMs,
    allowHttp: true,
    allowPrivate: true,
  });
  if (result.kind === 'acknowledged') return { status: 204 };
  if (result.kind === 'response') return { status: result.status };
  return { status: 502, error: `${result.kind}: ${scrubCredentials(result.error, url)}` };
}

/**
 * The local receiver: verifies each delivery (`verify`) with the endpoint's current `secret()`, forwards it
 * to `forwardTo` (its answer becomes the receiver's; 502 when it cannot be reached) and prints it.
 */
function createReceiver(
  context: CliContext,
  options: {
    verify: typeof verify;
    secret: () => string;
    forward: ((headers: Record<string, string>, body: Buffer) => Promise<Forwarded>) | undefined;
    print: PrintDelivery;
  },
): Server {
  const { forward, print } = options;
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const body = await readBody(req);
      const check = options.verify({ body, headers: req.headers, secret: options.secret() });
      let type: unknown = null;
      let data: unknown = null;
      try {
        ({ type, data } = JSON.parse(body.toString('utf8')) as { type: unknown; data: unknown });
      } catch {
        // not JSON: printed as it is below
      }
      let status = 204;
      let answer: Buffer | undefined;
      let forwardError: string | undefined;
      if (forward) {
        const headers = Object.fromEntries(
          Object.entries(req.headers)
            .filter(([name]) => FORWARDED.test(name))
            .map(([name, value]) => [name, String(value)]),
        );
        const forwarded = await forward(headers, body);
        status = forwarded.status;
        answer = forwarded.answer;
        forwardError = forwarded.error;
        if (forwarded.contentType) res.setHeader('content-type', forwarded.contentType);
      }
      res.statusCode = status;
      res.end(answer);
      const id = req.headers['webhook-id'];
      print(
        {
          kind: 'delivery',
          receivedAt: new Date().toISOString(),
          id,
          type,
          verified: check.ok,
          ...(check.ok ? {} : { reason: check.reason }),
          data: data ?? body.toString('utf8'),
          status,
          ...(forwardError ? { forwardError } : {}),
        },
        `${new Date().toISOString()}  ${String(id)}  ${String(type)}  ${check.ok ? 'signature ok' : `SIGNATURE REFUSED (${check.reason})`}  -> ${status}${forwardError ? ` (forward failed: ${forwardError})` : ''}`,
      );
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end();
      context.log.error({ err: error }, 'app listen: a delivery could not be handled');
    });
  });
}

/** What `app listen` can say of its endpoint once it has registered it. */
interface EndpointState {
  kind: 'enabled' | 'disabled' | 'removed' | 'unknown';
  text: string;
}

/**
 * Reads the endpoint again when asked (a notice that endpoints changed), one read at a time, and
 * says its state on stderr when it is no longer what was last said: disabled, enabled again or
 * removed, by an operator or by the worker (an endpoint answering 410 is disabled), at once
 * rather than at the next reconnection.
 */
function endpointWatcher(read: () => Promise<EndpointState | undefined>, say: (text: string) => void) {
  let last: EndpointState['kind'] = 'enabled';
  let running: Promise<void> | undefined;
  let again = false;
  const check = async () => {
    do {
      again = false;
      const state = await read();
      if (state && state.kind !== 'unknown' && state.kind !== last) {
        last = state.kind;
        say(
          state.kind === 'enabled' ? state.text.replace('still registered and enabled', 'enabled again') : state.text,
        );
      }
    } while (again);
  };
  return {
    /** The endpoint may have changed: read it (once more after the read under way, if one is). */
    changed(): void {
      if (running) {
        again = true;
        return;
      }
      running = check()
        .catch(() => undefined)
        .finally(() => (running = undefined));
    },
    /** What was said of it otherwise (at a reconnection). */
    said(kind: EndpointState['kind']): void {
      if (kind !== 'unknown') last = kind;
    },
    /** Whether it was last seen removed. */
    get removed(): boolean {
      return last === 'removed';
    },
  };
}

/**
 * What became of the run's endpoint, read again (once the database connection is back, or at a
 * notice that endpoints changed): still there and enabled (no delivery missed: the worker retries
 * those it could not make), disabled, or removed (events since may have been missed). Never throws.
 */
async function endpointState(deps: WebhookDeps, id: string): Promise<EndpointState> {
  const { showEndpoint } = await endpoints();
  try {
    const endpoint = await showEndpoint(deps, OPERATOR, id);
    if (endpoint.enabled)
      return {
        kind: 'enabled',
        text: `endpoint ${id} still registered and enabled, no delivery missed (the worker retries those it could not make)`,
      };
    return {
      kind: 'disabled',
      text: `endpoint ${id} was disabled (${endpoint.disabledReason || 'no reason given'}): no delivery arrives until \`app webhooks:enable ${id}\``,
    };
  } catch (error) {
    if (isAppError(error) && error.status === 404)
      return {
        kind: 'removed',
        text: `endpoint ${id} was removed: no delivery arrives and events since may have been missed; start app listen again`,
      };
    return {
      kind: 'unknown',
      text: `endpoint ${id} could not be read again (${(error as Error).message.split('\n')[0]})`,
    };
  }
}

/** Refuses a broker url to forward to that names no destination (the reason shows no credentials). */
async function checkBrokerForward(url: string): Promise<void> {
  const { checkWebhookUrl } = await import('../../shared/webhooks/address-rules.ts');
  try {
    checkWebhookUrl(url, { allowHttp: true, allowPrivate: true });
  } catch (error) {
    throw new UsageError(`--forward-to ${JSON.stringify(maskUrl(url))}: ${(error as Error).message}`);
  }
}

export const listenCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .option('events', {
        type: 'string',
        default: '*',
        describe: 'Event patterns to receive, comma-separated (default: every event)',
      })
      .option('owner', {
        type: 'string',
        describe: 'Receive the events of this tenant (default: events without owner)',
      })
      .option('forward-to', {
        type: 'string',
        describe:
          'Forward each delivery to this url and answer with its answer; a broker url (amqp://user:pass@host/vhost?exchange=…, nats://, mqtt://, redis://) gets it published as the worker would',
      })
      .option('port', { type: 'number', default: 0, describe: 'Port of the local receiver (default: a free one)' })
      .option('reconnect-timeout', {
        type: 'string',
        default: '5m',
        describe:
          'How long to try to reconnect once the database connection is lost (30s, 5m, 1h) before exiting 4; the endpoint is then left for the next start to remove',
      }),
  run: async (context, args) => {
    const { config, io } = context;
    if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65_535)
      throw new UsageError(`--port ${args.port}: must be a whole number from 0 to 65535 (0: a free one)`);
    if (!config.webhooks.allowHttp || !config.webhooks.allowPrivate) {
      throw new UsageError(
        'app listen receives on http://127.0.0.1, which this configuration refuses: start the service with `npm start -- --allow-local` (the CLI then allows it too), or set APP_WEBHOOKS__ALLOW_HTTP=true and APP_WEBHOOKS__ALLOW_PRIVATE=true for the CLI and the worker; never in production',
      );
    }
    const forwardTo = args['forward-to'];
    const toBroker = forwardTo !== undefined && isBrokerUrl(forwardTo);
    if (forwardTo !== undefined && !toBroker && !/^https?:\/\//.test(forwardTo))
      throw new UsageError(
        `--forward-to ${JSON.stringify(maskUrl(forwardTo))} is not an http(s) or broker (amqp, nats, mqtt, redis) url`,
      );
    if (toBroker) await checkBrokerForward(forwardTo);
    const reconnectWithinMs = parseDuration(args['reconnect-timeout']);
    if (reconnectWithinMs === null || reconnectWithinMs === 0)
      throw new UsageError(
        `--reconnect-timeout ${JSON.stringify(args['reconnect-timeout'])}: must be a duration such as 30s, 5m or 1h`,
      );
    const shownForward = forwardTo === undefined ? undefined : maskUrl(forwardTo);
    const json = args.json === true;
    // the state of the run's connection, beside the deliveries: on stderr, in both forms
    const warn = (text: string) => {
      io.stderr.write(`app listen: ${terminalText(text)}\n`);
    };
    const line = (document: Record<string, unknown>, text: string) =>
      io.stdout.write(json ? `${JSON.stringify(document)}\n` : `${terminalText(text)}\n`);
    const { registerEndpoint, removeEndpoint } = await endpoints();
    const { parseEventList, webhookDeps } = await helpers();
    const { verify } = await import('../../shared/webhooks/signing.ts');
    const deps = webhookDeps(context);

    // listening for the signals before anything else: one that comes while the endpoint is being
    // registered still stops this run, after which the endpoint is removed as usual
    const signal = stopSignal();
    let secret = '';
    const destinations = toBroker
      ? (await import('../../worker/destinations/index.ts')).createDestinations({ log: context.log })
      : undefined;
    const senders: Senders | undefined = destinations && {
      dispatcher: (await import('undici')).getGlobalDispatcher(),
      destinations,
    };
    const forward =
      forwardTo === undefined
        ? undefined
        : senders
          ? (headers: Record<string, string>, body: Buffer) =>
              forwardToBroker(senders, forwardTo, headers, body, config.webhooks.timeout)
          : (headers: Record<string, string>, body: Buffer) => forwardToHttp(forwardTo, headers, body);
    const server = createReceiver(context, { verify, secret: () => secret, forward, print: line });
    let watch: DatabaseWatch | undefined;
    let endpointId: string | undefined;
    const { ENDPOINTS_CHANGED_CHANNEL } = await import('../../shared/webhooks/endpoints/store.ts');
    const watcher = endpointWatcher(
      async () => (endpointId === undefined ? undefined : endpointState(deps, endpointId)),
      warn,
    );
    try {
      const removed = await removeStaleListeners(context);
      // watching before the endpoint exists: from then on, a lost connection is said, and a
      // connection that cannot be opened leaves no endpoint behind
      watch = await (await import('../support/database-watch.ts')).watchDatabase({
        config,
        name: 'app-listen',
        reconnectWithinMs,
        onLost: (error) =>
          warn(
            `lost its database connection to ${databaseHost(config.databaseUrl)} (${error.message.split('\n')[0]}); reconnecting for up to ${formatDuration(reconnectWithinMs)}, deliveries the worker makes meanwhile still arrive`,
          ),
        onBack: async (downMs) => {
          const state = endpointId === undefined ? undefined : await endpointState(deps, endpointId);
          if (state) watcher.said(state.kind);
          warn(`database connection back after ${(downMs / 1000).toFixed(1)}s${state ? `; ${state.text}` : ''}`);
        },
        notices: { channel: ENDPOINTS_CHANGED_CHANNEL, onNotice: () => watcher.changed() },
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(args.port, '127.0.0.1', () => resolve());
      });
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const endpoint = await registerEndpoint(deps, OPERATOR, {
        url,
        events: parseEventList(args.events) ?? ['*'],
        owner: args.owner,
        description: `app listen: pid ${process.pid} on ${hostname()}, started ${new Date().toISOString()}`,
      });
      secret = endpoint.secret;
      endpointId = endpoint.id;
      line(
        {
          kind: 'listening',
          url,
          endpointId: endpoint.id,
          events: endpoint.events,
          owner: endpoint.owner,
          forwardTo: shownForward ?? null,
          removedStale: removed,
        },
        `listening on ${url} as endpoint ${endpoint.id} (events ${endpoint.events.join(', ')}${endpoint.owner ? `, owner ${endpoint.owner}` : ', no owner'})` +
          `${shownForward ? `, forwarding to ${shownForward}` : ''}${removed.length ? `; removed ${removed.length} left by a killed listen` : ''}\nCtrl-C stops and removes the endpoint`,
      );

      // stopped by a signal, or failing once the connection was lost and not back within the bound
      await Promise.race([signal.stopped, watch.failed]);
      await watch.stop();
      await closeReceiver(server);
      if (watcher.removed && (await endpointState(deps, endpoint.id)).kind === 'removed')
        line({ kind: 'stopped', endpointId: endpoint.id }, `stopped; endpoint ${endpoint.id} had been removed already`);
      else {
        await removeEndpoint(deps, OPERATOR, endpoint.id);
        line({ kind: 'stopped', endpointId: endpoint.id }, `stopped; endpoint ${endpoint.id} removed`);
      }
    } finally {
      // every way out, a failure included: nothing left to hold the process open or catch its signals
      signal.remove();
      await watch?.stop();
      await closeReceiver(server);
      await destinations?.close();
    }
  },
});
