import type { Server, ServerResponse } from 'node:http';
import type { Config } from '../shared/config/index.ts';
import type { Logger } from '../shared/log/logger.ts';
import type { Phase } from './health/readiness.ts';

/** Something the web process starts and must stop in reverse order at shutdown. */
export interface Module {
  name: string;
  start?(): Promise<void>;
  stop?(): Promise<void>;
}

/**
 * The web process's boot order, the one place it is written: `Lifecycle.boot` starts the modules
 * phase by phase in this order (each phase's in its listed order) and shutdown stops them in
 * reverse, so what a phase uses is started before it and stopped after it.
 *
 * - `stores`: where state lives: the shared store (idempotency records, rate-limit counters), the
 *   limiters' and idempotency's own stores, the pool, the health probe's pool, and the endpoint
 *   store (`webhooks.store`) the webhook module reads and writes endpoints through, whose module
 *   the webhook API's plug gives (api/webhooks-api/plug.ts `stores`).
 * - `queue`: the webhook tables and graphile-worker's job queue schema that emits write into
 *   (`webhooks.install`, api/run.ts; it retries in the background, so a database that is down
 *   does not hold the boot).
 * - `webhooks`: the webhook module: the one `WebhookDeps` and endpoint cache of the process, which
 *   the webhook API, GraphQL, the console and the application's `ctx.webhooks` share.
 * - `routes`: what the routes answer with: GraphQL, the token cache, the account pages' mail, then
 *   the modules a caller adds. The route table itself is discovered and compiled before the port
 *   opens (a mistake in it stops the process before it listens); readiness says `starting`
 *   until every phase has started.
 */
export const BOOT_ORDER = ['stores', 'queue', 'webhooks', 'routes'] as const;

export type BootPhase = (typeof BOOT_ORDER)[number];

/** The modules of each boot phase. */
export type BootModules = Readonly<Record<BootPhase, readonly Module[]>>;

/** `own` with a caller's modules added: a list goes after the `routes` phase's, phases to their own. */
export function withModules(own: BootModules, added: readonly Module[] | Partial<BootModules>): BootModules {
  const extra: Partial<BootModules> = Array.isArray(added) ? { routes: added } : (added as Partial<BootModules>);
  return Object.fromEntries(
    BOOT_ORDER.map((phase) => [phase, [...own[phase], ...(extra[phase] ?? [])]]),
  ) as unknown as BootModules;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Tracks the web process's phase and in-flight requests, and runs the shutdown of its lifecycle
 * (docs/operations.md "Shutdown"): readiness 503 at once while the port keeps serving for `shutdown.delay`;
 * then the listener closes and idle keep-alive sockets are hung up; requests in flight run to their
 * end up to `shutdown.drain`, what is still open is destroyed (and counted in the log); modules
 * stop in reverse start order. Resolves to the exit code: 1 if a module failed to stop.
 */
export class Lifecycle {
  phase: Phase = 'starting';
  readonly modules: Module[] = [];
  private readonly inflight = new Set<ServerResponse>();
  private stopping: Promise<number> | undefined;
  private readonly config: Config;
  private readonly log: Logger;

  constructor(config: Config, log: Logger) {
    this.config = config;
    this.log = log;
  }

  /** Counts the server's requests; answers given while draining close their connection. */
  watch(server: Server): void {
    server.on('request', (_req, res: ServerResponse) => {
      if (this.phase === 'draining') res.shouldKeepAlive = false;
      this.inflight.add(res);
      res.once('close', () => this.inflight.delete(res));
    });
  }

  /**
   * Starts the modules in {@link BOOT_ORDER}, saying the order once and each module as it starts;
   * the phase turns `ready` when all have started.
   */
  async boot(modules: BootModules): Promise<void> {
    const names = Object.fromEntries(BOOT_ORDER.map((phase) => [phase, modules[phase].map((module) => module.name)]));
    this.log.info({ modules: names }, `boot order: ${BOOT_ORDER.join(', ')}`);
    for (const phase of BOOT_ORDER) {
      for (const module of modules[phase]) {
        this.log.debug({ phase, module: module.name }, `starting ${phase} module ${module.name}`);
        await module.start?.();
        this.modules.push(module);
      }
    }
    if (this.phase === 'starting') this.phase = 'ready';
  }

  shutdown(server: Server, signal: string): Promise<number> {
    this.stopping ??= this.drain(server, signal);
    return this.stopping;
  }

  private async drain(server: Server, signal: string): Promise<number> {
    const { delay, drain } = this.config.shutdown;
    this.phase = 'draining';
    this.log.info({ signal, delay, drain }, 'shutting down: readiness now answers 503');
    for (const res of this.inflight) res.shouldKeepAlive = false;
    if (delay > 0) await sleep(delay);

    const closed = new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
    server.closeIdleConnections();
    const deadline = Date.now() + drain;
    while (this.inflight.size > 0 && Date.now() < deadline) {
      await sleep(Math.min(50, Math.max(1, deadline - Date.now())));
      server.closeIdleConnections();
    }
    const destroyed = this.inflight.size;
    if (destroyed > 0) {
      this.log.warn({ destroyed }, `shutdown: ${destroyed} request(s) still open after ${drain} ms were destroyed`);
    }
    server.closeAllConnections();
    await closed;

    let failed = 0;
    for (const module of [...this.modules].reverse()) {
      try {
        await module.stop?.();
      } catch (error) {
        failed += 1;
        this.log.error({ err: error, module: module.name }, 'module failed to stop');
      }
    }
    this.log.info({ failed }, 'shutdown complete');
    return failed > 0 ? 1 : 0;
  }
}
