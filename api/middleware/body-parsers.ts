import { bodyParser } from '@koa/bodyparser';
import type { Middleware } from 'koa';
import { badRequest, isAppError, payloadTooLarge } from '../../shared/errors/app-error.ts';

/** JSON media types parsed as JSON: plain, HAL, the versioned type, and any other `+json`. */
const JSON_TYPES = ['application/json', 'application/hal+json', 'application/vnd.app.v1+json', 'application/*+json', 'application/csp-report', 'application/reports+json'];

/**
 * JSON and form bodies of POST, PUT and PATCH, each limited to `config.bodyLimit` bytes (413
 * `APP_BODY_TOO_LARGE` above it); malformed JSON is 400 `APP_BODY_INVALID`. JSON bodies must be
 * an object or an array.
 */
export function bodyParsers(options: { limit: number }): Middleware {
  const parse = bodyParser({
    enableTypes: ['json', 'form'],
    extendTypes: { json: JSON_TYPES },
    jsonLimit: options.limit,
    formLimit: options.limit,
    jsonStrict: true,
  });
  return async function bodyParsers(ctx, next) {
    let parsed = false;
    try {
      await parse(ctx, async () => {
        parsed = true;
      });
    } catch (error) {
      if (isAppError(error)) throw error;
      const failure = error as { status?: number; type?: string; message?: string };
      if (failure.status === 413 || failure.type === 'entity.too.large') {
        throw payloadTooLarge(`the request body is larger than ${options.limit} bytes`, {
          code: 'APP_BODY_TOO_LARGE',
          data: { limit: options.limit },
          cause: error,
        });
      }
      if (failure.status === 400 || error instanceof SyntaxError) {
        throw badRequest(`the request body is not valid: ${failure.message ?? 'malformed'}`, { code: 'APP_BODY_INVALID', cause: error });
      }
      throw error;
    }
    if (parsed) await next();
  };
}
