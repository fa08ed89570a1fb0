import type { Middleware } from 'koa';
import { unavailable } from '../../shared/errors/app-error.ts';

/**
 * A request still running after `config.requestTimeout` is answered 503. The work goes on in
 * the background but sees `ctx.state.signal` aborted, and Koa ignores anything it sets
 * afterwards, so nothing is written to a socket that has already been answered.
 */
export function timeout(options: { ms: number }): Middleware {
  return async function timeout(ctx, next) {
    const controller = new AbortController();
    ctx.state.signal = controller.signal;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(unavailable(`request did not finish within ${options.ms} ms`));
      }, options.ms);
    });
    try {
      await Promise.race([next(), expired]);
    } finally {
      clearTimeout(timer);
    }
  };
}
