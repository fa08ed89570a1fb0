import type { Middleware } from 'koa';
import { commitDeadline, requestTimedOut, withDeadline } from '../../shared/db/commit-deadline.ts';
import { cancelOnAbort } from '../../shared/db/request-statements.ts';
import type { Logger } from '../../shared/log/logger.ts';

declare module 'koa' {
  interface DefaultState {
    /** Aborted when the request times out. */
    signal?: AbortSignal;
  }
}

/**
 * A request still running after `config.requestTimeout` is answered 503, and its work is
 * stopped: `ctx.state.signal` aborts, the statements it has under way are cancelled on PostgreSQL
 * (shared/db/request-statements.ts: their connections go back to the pool instead of waiting on a
 * lock or a slow read), and a write that reaches its commit afterwards rolls back: the request
 * runs with its deadline in its async scope (`withDeadline`), where every transaction and every
 * endpoint store write claims its commit (shared/db/commit-deadline.ts), so what the client was
 * told failed did not happen. When the timer fires after a write of the request claimed its
 * commit, the answer waits for the request's own and is the real one. Koa ignores anything set
 * after the 503, so nothing is written to a socket that has already been answered; how the work
 * ended after it (a write refused with `APP_REQUEST_TIMEOUT`, a cancelled statement) is logged at
 * `info` for the operator.
 */
export function timeout(options: { ms: number; log?: Logger }): Middleware {
  return async function timeout(ctx, next) {
    const controller = new AbortController();
    const deadline = commitDeadline();
    ctx.state.signal = controller.signal;
    const work = withDeadline(deadline, () => cancelOnAbort(controller.signal, next));
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        if (!deadline.expire()) return; // committing: the work's own answer follows
        controller.abort();
        reject(requestTimedOut(`request did not finish within ${options.ms} ms`));
        work.then(
          () => options.log?.info({ path: ctx.path }, 'the work of a request answered 503 by its timeout finished'),
          (error: unknown) =>
            options.log?.info(
              { path: ctx.path, code: (error as { code?: unknown })?.code, reason: (error as Error)?.message },
              'the work of a request answered 503 by its timeout stopped',
            ),
        );
      }, options.ms);
    });
    try {
      await Promise.race([work, expired]);
    } finally {
      clearTimeout(timer);
    }
  };
}
