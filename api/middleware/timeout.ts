import type { Middleware } from 'koa';
import { commitDeadline, withDeadline } from '../../shared/db/commit-deadline.ts';
import { cancelOnAbort } from '../../shared/db/request-statements.ts';
import { unavailable } from '../../shared/errors/app-error.ts';

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
 * after the 503, so nothing is written to a socket that has already been answered.
 */
export function timeout(options: { ms: number }): Middleware {
  return async function timeout(ctx, next) {
    const controller = new AbortController();
    const deadline = commitDeadline();
    ctx.state.signal = controller.signal;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        if (!deadline.expire()) return; // committing: the work's own answer follows
        controller.abort();
        reject(unavailable(`request did not finish within ${options.ms} ms`));
      }, options.ms);
    });
    try {
      await Promise.race([withDeadline(deadline, () => cancelOnAbort(controller.signal, next)), expired]);
    } finally {
      clearTimeout(timer);
    }
  };
}
