import type { Middleware } from 'koa';
import * as factories from '../../shared/errors/app-error.ts';
import type { AppError } from '../../shared/errors/app-error.ts';

type Options = ConstructorParameters<typeof AppError>[2];
type Thrower = (message: string, options?: Options) => never;

/** `ctx.boom.<name>(message, options)` throws the AppError of that name; the error middleware renders it. */
export interface ErrorHelpers {
  badRequest: Thrower;
  unauthorized: Thrower;
  forbidden: Thrower;
  notFound: Thrower;
  notAcceptable: Thrower;
  conflict: Thrower;
  payloadTooLarge: Thrower;
  unprocessable: Thrower;
  tooManyRequests: Thrower;
  internal: Thrower;
  unavailable: Thrower;
}

const throwing =
  (factory: (message: string, options?: Options) => AppError): Thrower =>
  (message, options) => {
    throw factory(message, options);
  };

/** The one set of helpers, shared by every request (they hold no request state). */
export const BOOM: ErrorHelpers = Object.freeze({
  badRequest: throwing(factories.badRequest),
  unauthorized: throwing(factories.unauthorized),
  forbidden: throwing(factories.forbidden),
  notFound: throwing(factories.notFound),
  notAcceptable: throwing(factories.notAcceptable),
  conflict: throwing(factories.conflict),
  payloadTooLarge: throwing(factories.payloadTooLarge),
  unprocessable: throwing(factories.unprocessable),
  tooManyRequests: throwing(factories.tooManyRequests),
  internal: throwing(factories.internal),
  unavailable: throwing(factories.unavailable),
});

/**
 * `ctx.boom`, what an Express-style app has as `res.boom`:
 * `ctx.boom.tooManyRequests('slow down', {code, data, headers})` refuses the request with a
 * problem+json answer. Koa answers by throwing, so these throw the shared AppError factories
 * instead of writing the answer themselves.
 */
export function errorHelpers(): Middleware {
  return async function errorHelpers(ctx, next) {
    ctx.boom = BOOM;
    await next();
  };
}
