import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { brotliDecompressSync, unzipSync } from 'node:zlib';
import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware } from 'koa';
import { AppError, badRequest, isAppError, payloadTooLarge, tooManyRequests } from '../../shared/errors/app-error.ts';
import { clip } from '../../shared/errors/describe-value.ts';
import { bytesInFlight, type BytesInFlight } from '../../shared/security/bytes-in-flight.ts';

/** JSON media types parsed as JSON: plain, HAL, the versioned type, and any other `+json`. */
const JSON_TYPES = [
  'application/json',
  'application/hal+json',
  'application/vnd.app.v1+json',
  'application/*+json',
  'application/csp-report',
  'application/reports+json',
];

/** The methods whose body is read (the body parser's own list). */
const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The charsets a JSON or form body may declare: JSON text is UTF-8 (RFC 8259), and so are our forms. */
const CHARSETS = new Set(['utf-8', 'utf8']);

/** Longest part of a refused `Content-Type` repeated in the answer. */
const MAX_ECHO = 200;

export const BODY_MEDIA_TYPE_UNSUPPORTED = 'APP_BODY_MEDIA_TYPE_UNSUPPORTED';

/**
 * JSON and form bodies of POST, PUT and PATCH, each limited to `config.bodyLimit` bytes (413
 * `APP_BODY_TOO_LARGE` above it); malformed JSON is 400 `APP_BODY_INVALID`. JSON bodies must be
 * an object or an array. A compressed body (`Content-Encoding` gzip, deflate, br) that does not
 * decompress is 400 `APP_BODY_INVALID`; any other encoding is 415
 * `APP_BODY_ENCODING_UNSUPPORTED` naming it. Coding names are case-insensitive (RFC 9110), `x-gzip`
 * is gzip and `identity` is none; two codings stacked on one body are refused (415).
 *
 * A body is never ignored: one of another media type (text/plain, XML, none given) is 415
 * `APP_BODY_MEDIA_TYPE_UNSUPPORTED`, as is a JSON or form body declaring a charset other than
 * UTF-8; bytes that are not UTF-8 are 400 `APP_BODY_INVALID` (they used to become U+FFFD
 * silently). A request without a body (no `Content-Length`, or 0, or an empty chunked body) is
 * served whatever its `Content-Type`. A form body that is JSON text (`curl -d '{…}'` without a
 * `Content-Type`) is 415 too, saying to send `application/json`. Paths in `ownMediaTypes` (the GraphQL path, which answers
 * its own 415) are not refused for their media type.
 *
 * A body is held in memory while it arrives, and a client that stops sending holds it until the
 * request times out: so one client (`ctx.ip`) may have at most `inFlight` bytes of bodies being
 * received at once (`bodiesInFlight`), each counted at its `Content-Length` (at `limit` when
 * chunked) until it is read or its request ends. A body past that is refused unread with 429
 * `APP_BODIES_IN_FLIGHT`; a client's first body is always taken. Without this bound, one client's
 * 200 stalled uploads of 1 MB held 380 MB of the process for the 30 s of `requestTimeout`.
 */
export function bodyParsers(options: {
  limit: number;
  inFlight?: number;
  ownMediaTypes?: ReadonlySet<string>;
}): Middleware {
  const parse = bodyParser({
    enableTypes: ['json', 'form'],
    extendTypes: { json: JSON_TYPES },
    jsonLimit: options.limit,
    formLimit: options.limit,
    jsonStrict: true,
  });
  const held = bytesInFlight(); // bytes of bodies being received, by client
  return async function bodyParsers(ctx, next) {
    normaliseContentEncoding(ctx.req.headers);
    const parsedMethod = PARSED_METHODS.has(ctx.method);
    const readable = parsedMethod && !!ctx.is(...JSON_TYPES, 'application/x-www-form-urlencoded');
    const announced = readable && declaresBody(ctx);
    if (announced) refuseCharset(ctx);
    const within = readable && lengthWithin(ctx, options.limit);
    const release =
      announced && within && options.inFlight ? hold(ctx, held, options.limit, options.inFlight) : undefined;
    // the bytes as they arrive, to tell bytes that are not UTF-8 from a U+FFFD the client sent
    const received = within ? collect(ctx.req, options.limit) : undefined;
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
    } finally {
      received?.stop();
      release?.();
    }
    if (!parsed) return;
    const raw = (ctx.request as { rawBody?: unknown }).rawBody;
    if (typeof raw === 'string' && raw.includes('\uFFFD') && received && !isUtf8(decoded(ctx, received.bytes()))) {
      throw badRequest('the request body is not valid UTF-8', {
        code: 'APP_BODY_INVALID',
        data: { reason: 'the body holds bytes that are not UTF-8' },
      });
    }
    if (parsedMethod && raw === undefined && !options.ownMediaTypes?.has(ctx.path) && (await hasBody(ctx))) {
      throw unsupportedMediaType(ctx);
    }
    if (typeof raw === 'string' && !options.ownMediaTypes?.has(ctx.path) && jsonAsForm(ctx, raw)) {
      throw jsonSentAsForm(ctx);
    }
    await next();
  };
}

/**
 * Counts a body about to be read against its client's `inFlight` bytes, or refuses it (429
 * `APP_BODIES_IN_FLIGHT`); answers the function that gives the bytes back, once, when the body
 * is read, its request closes or its answer is sent, whichever comes first.
 */
function hold(ctx: Context, held: BytesInFlight, limit: number, inFlight: number): () => void {
  const size = Math.min(Number(ctx.get('Content-Length')) || limit, limit);
  const { before, release } = held.hold(ctx.ip, size, inFlight);
  if (!release) {
    ctx.set('Connection', 'close'); // the body is not read: nothing more comes on this connection
    throw tooManyRequests(
      `this client is already sending ${before} bytes of request bodies; at most ${inFlight} are received at once: retry when they are done`,
      { code: 'APP_BODIES_IN_FLIGHT', data: { inFlight: before, limit: inFlight }, headers: { 'Retry-After': '1' } },
    );
  }
  // a request answered before its body arrived (the request timeout) may never end nor close:
  // its answer's end gives the bytes back too, as nothing reads the body after it
  const done = () => {
    ctx.req.off('close', done);
    ctx.res.off('close', done);
    release();
  };
  ctx.req.once('close', done);
  ctx.res.once('close', done);
  return done;
}

/** 415 for a body the service does not read: its media type (or none) is named. */
function unsupportedMediaType(ctx: Context): AppError {
  const contentType = clip(ctx.get('Content-Type'), MAX_ECHO);
  const detail = contentType
    ? `the request body's Content-Type ${JSON.stringify(contentType)} is not supported: send application/json (or application/x-www-form-urlencoded where a form is taken)`
    : 'the request body has no Content-Type: send it as application/json (or application/x-www-form-urlencoded where a form is taken)';
  return new AppError(415, detail, { code: BODY_MEDIA_TYPE_UNSUPPORTED, data: { contentType } });
}

/**
 * Whether a body declared as a form is JSON text: what `curl -d '{…}'` sends without a
 * `Content-Type` of its own. Read as a form it becomes one field named after a piece of the JSON,
 * which a route then refuses as an unknown field whose name tells nothing; a browser's form never
 * starts so (it encodes `{` and `[`).
 */
function jsonAsForm(ctx: Context, raw: string): boolean {
  return !!ctx.is('application/x-www-form-urlencoded') && /^\s*[{[]/.test(raw);
}

/** 415 for JSON sent as a form, saying which header to send. */
function jsonSentAsForm(ctx: Context): AppError {
  const contentType = clip(ctx.get('Content-Type'), MAX_ECHO);
  return new AppError(
    415,
    `the request body is JSON but its Content-Type is ${JSON.stringify(contentType)}, a form (what curl -d sends unless told otherwise): send it with Content-Type: application/json`,
    { code: BODY_MEDIA_TYPE_UNSUPPORTED, data: { contentType } },
  );
}

/** A JSON or form body that declares a charset other than UTF-8 is refused before it is read. */
function refuseCharset(ctx: Context): void {
  const charset = ctx.request.charset.toLowerCase();
  if (charset === '' || CHARSETS.has(charset)) return;
  const shown = clip(charset, MAX_ECHO);
  throw new AppError(415, `the request body's charset ${JSON.stringify(shown)} is not supported: send UTF-8`, {
    code: BODY_MEDIA_TYPE_UNSUPPORTED,
    data: { contentType: clip(ctx.get('Content-Type'), MAX_ECHO), charset: shown },
  });
}

/** Whether the headers announce a body: a `Content-Length` above 0, or a chunked one. */
function declaresBody(ctx: Context): boolean {
  if (ctx.get('Transfer-Encoding') !== '') return true;
  const length = Number(ctx.get('Content-Length'));
  return Number.isFinite(length) && length > 0;
}

/** False when `Content-Length` already says the body is over the limit (the parser refuses it unread). */
function lengthWithin(ctx: Context, limit: number): boolean {
  const length = Number(ctx.get('Content-Length') || 0);
  return !(length > limit);
}

/**
 * Whether a request the parser did not read has a body: by its `Content-Length`; a chunked one
 * is read up to its first byte (an empty chunked body is no body).
 */
async function hasBody(ctx: Context): Promise<boolean> {
  if (ctx.get('Transfer-Encoding') === '') return declaresBody(ctx);
  return firstByte(ctx.req);
}

function firstByte(req: IncomingMessage): Promise<boolean> {
  if (req.readableEnded) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = (answer: boolean) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onEnd);
      req.off('error', onEnd);
      resolve(answer);
    };
    const onData = (chunk: Buffer) => {
      if (chunk.length === 0) return;
      req.pause();
      settle(true);
    };
    const onEnd = () => settle(false);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onEnd);
    req.once('error', onEnd);
  });
}

/** The chunks of `stream` as they arrive (references, no copies), until `stop` or past `limit` bytes. */
function collect(stream: IncomingMessage, limit: number): { bytes(): Buffer; stop(): void } {
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) stop();
    else chunks.push(chunk);
  };
  const stop = () => stream.off('data', onData);
  stream.on('data', onData);
  return { bytes: () => Buffer.concat(chunks), stop };
}

/** The body's bytes as the parser decoded them: decompressed per its (normalised) `Content-Encoding`. */
function decoded(ctx: Context, bytes: Buffer): Buffer {
  const coding = ctx.get('Content-Encoding');
  try {
    if (coding === 'gzip' || coding === 'deflate') return unzipSync(bytes);
    if (coding === 'br') return brotliDecompressSync(bytes);
  } catch {
    return Buffer.from([0xff]); // it decompressed for the parser; if not here, it is not trusted as UTF-8
  }
  return bytes;
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
