import { bodyParser } from '@koa/bodyparser';
import type { Middleware } from 'koa';
import { AppError, badRequest, isAppError, payloadTooLarge } from '../../shared/errors/app-error.ts';

/** JSON media types parsed as JSON: plain, HAL, the versioned type, and any other `+json`. */
const JSON_TYPES = [
  'application/json',
  'application/hal+json',
  'application/vnd.app.v1+json',
  'application/*+json',
  'application/csp-report',
  'application/reports+json',
];

/**
 * JSON and form bodies of POST, PUT and PATCH, each limited to `config.bodyLimit` bytes (413
 * `APP_BODY_TOO_LARGE` above it); malformed JSON is 400 `APP_BODY_INVALID`. JSON bodies must be
 * an object or an array. A compressed body (`Content-Encoding` gzip, deflate, br) that does not
 * decompress is 400 `APP_BODY_INVALID`; any other encoding is 415
 * `APP_BODY_ENCODING_UNSUPPORTED` naming it. Coding names are case-insensitive (RFC 9110), `x-gzip`
 * is gzip and `identity` is none; two codings stacked on one body are refused (415).
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
    normaliseContentEncoding(ctx.req.headers);
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
      if (failure.status === 415 || failure.type === 'encoding.unsupported') {
        const encoding = ctx.get('Content-Encoding');
        throw new AppError(
          415,
          `the request body's Content-Encoding ${JSON.stringify(encoding)} is not supported: use gzip, deflate or br, or none`,
          {
            code: 'APP_BODY_ENCODING_UNSUPPORTED',
            data: { encoding },
            cause: error,
          },
        );
      }
      // A body that does not decompress (zlib and brotli errors carry Z_* / ERR_* codes but no status)
      const zlibCode = (error as { code?: unknown }).code;
      if (
        failure.status === 400 ||
        error instanceof SyntaxError ||
        (typeof zlibCode === 'string' && /^(Z_|ERR_(__)?ZLIB|ERR_BROTLI|ERR__ERROR_)/.test(zlibCode))
      ) {
        throw badRequest(`the request body is not valid: ${failure.message ?? 'malformed'}`, {
          code: 'APP_BODY_INVALID',
          cause: error,
        });
      }
      throw error;
    }
    if (parsed) await next();
  };
}

const CODING_ALIASES: Readonly<Record<string, string>> = { 'x-gzip': 'gzip' };

/**
 * `Content-Encoding` as the body parser understands it: the codings lowercased, aliases resolved,
 * `identity` dropped (no header when nothing remains). Two codings stacked are refused here.
 */
function normaliseContentEncoding(headers: Record<string, string | string[] | undefined>): void {
  const given = headers['content-encoding'];
  if (given === undefined) return;
  const codings = [given]
    .flat()
    .join(',')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .map((coding) => CODING_ALIASES[coding] ?? coding);
  if (codings.length > 1) {
    throw new AppError(
      415,
      `the request body's Content-Encoding stacks ${codings.length} codings (${codings.join(', ')}): use one of gzip, deflate or br, or none`,
      {
        code: 'APP_BODY_ENCODING_UNSUPPORTED',
        data: { encoding: codings.join(', ') },
      },
    );
  }
  if (codings.length === 0) delete headers['content-encoding'];
  else headers['content-encoding'] = codings[0];
}
