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

  /** Starts the modules in order; the phase turns `ready` when all have started. */
  async boot(modules: Module[]): Promise<void> {
    for (const module of modules) {
      await module.start?.();
      this.modules.push(module);
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
