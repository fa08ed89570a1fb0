import type { Middleware } from 'koa';
import { commitDeadline, type CommitDeadline } from '../../shared/db/commit-deadline.ts';
import { cancelOnAbort } from '../../shared/db/request-statements.ts';
import { unavailable } from '../../shared/errors/app-error.ts';

declare module 'koa' {
  interface DefaultState {
    /** Aborted when the request times out. */
    signal?: AbortSignal;
    /** Settles "timed out" against "committing" (shared/db/commit-deadline.ts). */
    deadline?: CommitDeadline;
  }
}

/**
 * A request still running after `config.requestTimeout` is answered 503, and its work is
 * stopped: `ctx.state.signal` aborts, the statements it has under way are cancelled on PostgreSQL
 * (shared/db/request-statements.ts: their connections go back to the pool instead of waiting on a
 * lock or a slow read), and a transaction that reaches its commit afterwards rolls back
 * (`ctx.state.deadline`, which the webhook core's writes check), so what the client was told
 * failed did not happen. When the timer fires while a commit is already under way, the answer
 * waits for that commit and is the real one. Koa ignores anything set after the 503, so nothing
 * is written to a socket that has already been answered.
 */
export function timeout(options: { ms: number }): Middleware {
  return async function timeout(ctx, next) {
    const controller = new AbortController();
    const deadline = commitDeadline();
    ctx.state.signal = controller.signal;
    ctx.state.deadline = deadline;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        if (!deadline.expire()) return; // committing: the work's own answer follows
        controller.abort();
        reject(unavailable(`request did not finish within ${options.ms} ms`));
      }, options.ms);
    });
    try {
      await Promise.race([cancelOnAbort(controller.signal, next), expired]);
    } finally {
      clearTimeout(timer);
    }
  };
}
