/**
 * The HTTP client of the delivery worker: one undici `Agent` per worker process whose sockets
 * only ever connect to checked addresses (shared/webhooks/address-rules.ts), with no DNS
 * rebinding between check and connect.
 *
 * A host name is resolved once per new connection, with all its addresses, by the connector's
 * `lookup`; every answer is checked by the address rules and the socket is handed exactly the
 * checked answers, so nothing resolves the name a second time (no DNS rebinding between check and
 * connect). TLS still validates the certificate against the host name (undici sets `servername`
 * from the URL's host). An IP literal never reaches `lookup` in Node, so the connector checks it
 * itself before connecting; `postDelivery` also checks it first to report it cleanly.
 *
 * HTTP/2 is not offered: with HTTP/1.1, dropping the response after the 64 kB excerpt closes the
 * socket, so no more than the excerpt is read.
 */
import { isIP, type LookupFunction } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { Agent, buildConnector } from 'undici';
import { AppError } from '../../shared/errors/app-error.ts';
import { checkAddress, resolveAndCheck, type HostLookup } from '../../shared/webhooks/address-rules.ts';

/** Options of `createPinnedDispatcher`. */
export interface PinnedDispatcherOptions {
  /** `webhooks.allowPrivate`: skip the address rules (a test configuration on the loopback). */
  allowPrivate: boolean;
  /** Resolves all addresses of a name; default `dns.promises.lookup(name, {all: true})`. */
  lookup?: HostLookup;
  /** Time allowed to establish a connection (TCP and TLS), in milliseconds. */
  connectTimeoutMs: number;
  /** Most connections kept open per origin (default 8). */
  connections?: number;
  /** How long an idle connection is kept for reuse, in milliseconds (default 10 s). */
  keepAliveTimeoutMs?: number;
  /** Certificate authorities trusted instead of Node's bundled ones (tests, a private CA). */
  ca?: string | Buffer | Array<string | Buffer>;
}

function wantedFamily(family: unknown): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}

/**
 * A `net.connect` lookup that resolves the name once (all addresses), refuses it when any answer
 * is refused (unless `allowPrivate`) and answers only the checked addresses. Errors are the
 * AppErrors of `resolveAndCheck` (`APP_WEBHOOK_ADDRESS_REFUSED`, `APP_WEBHOOK_HOST_UNRESOLVABLE`).
 */
export function pinnedLookup(options: { allowPrivate: boolean; lookup?: HostLookup }): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    resolveAndCheck(hostname, options).then(
      (resolved) => {
        const family = wantedFamily(lookupOptions.family);
        const addresses: LookupAddress[] = resolved
          .filter((entry) => family === 0 || entry.family === family)
          .map((entry) => ({ address: entry.address, family: entry.family }));
        if (addresses.length === 0) {
          const error = new AppError(422, `webhook host ${hostname} has no IPv${family} address`, {
            code: 'APP_WEBHOOK_HOST_UNRESOLVABLE',
            data: { host: hostname, reason: `no IPv${family} address` },
          });
          callback(error, '');
          return;
        }
        if (lookupOptions.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (error: AppError) => callback(error, ''),
    );
  };
}

/**
 * Creates the worker's dispatcher: an undici `Agent` (HTTP/1.1, connection reuse per origin)
 * whose connector resolves names through `pinnedLookup` and refuses IP literals the address rules
 * refuse (AppError `APP_WEBHOOK_ADDRESS_REFUSED`, data `{address, rule, host}`), unless
 * `allowPrivate`. Close it with `agent.close()` when the worker stops.
 */
export function createPinnedDispatcher(options: PinnedDispatcherOptions): Agent {
  const connectChecked = buildConnector({
    timeout: options.connectTimeoutMs,
    lookup: pinnedLookup({ allowPrivate: options.allowPrivate, lookup: options.lookup }),
    keepAlive: true,
    keepAliveInitialDelay: 60_000,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  });
  const connect: buildConnector.connector = (connectOptions, callback) => {
    const host = connectOptions.hostname;
    if (!options.allowPrivate && isIP(host) !== 0) {
      const verdict = checkAddress(host);
      if (!verdict.ok) {
        const error = new AppError(422, `webhook address ${host} is refused: ${verdict.rule}`, {
          code: 'APP_WEBHOOK_ADDRESS_REFUSED',
          data: { address: host, rule: verdict.rule, host },
        });
        callback(error, null);
        return;
      }
    }
    connectChecked(connectOptions, callback);
  };
  return new Agent({
    connect,
    connections: options.connections ?? 8,
    pipelining: 1,
    allowH2: false,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
    keepAliveMaxTimeout: 60_000,
  });
}
