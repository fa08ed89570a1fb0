import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { logContext } from '../../shared/log/logger.ts';

/** A client's id is kept when it is 1–200 printable ASCII characters (no spaces, no controls). */
const SANE = /^[\x21-\x7e]{1,200}$/;

/** The request id of a request: the client's `X-Request-Id` when it is sane, else a new one. */
export function requestIdFor(given: string | undefined): string {
  return given !== undefined && SANE.test(given) ? given : randomUUID();
}

/** Keeps a sane `X-Request-Id` from the client or makes one; echoes it; tags every log line. */
export function requestId(): Middleware {
  return async function requestId(ctx, next) {
    const id = requestIdFor(ctx.get('X-Request-Id'));
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    await logContext.run({ reqId: id }, next);
  };
}
