import { createHash } from 'node:crypto';
import { Stream } from 'node:stream';
import type { Context, Middleware } from 'koa';

/** A weak validator of a representation: same media type and text (or its UTF-8 bytes), same tag. */
export const weakEtag = (type: string, text: string | Uint8Array): string =>
  `W/"${createHash('sha256').update(type).update('\n').update(text).digest('base64url').slice(0, 32)}"`;

/**
 * RFC 9110 13.1.2: whether `If-None-Match` names this tag (weak comparison: `W/` is ignored;
 * `*` matches any current representation). Evaluated by the origin whatever `Cache-Control`
 * the request carries (fetch adds `no-cache` to every conditional request).
 */
export function noneMatch(header: string, etag: string): boolean {
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => opaque(candidate) === opaque(etag));
}

const isJsonBody = (body: unknown): body is object =>
  typeof body === 'object' &&
  body !== null &&
  !Buffer.isBuffer(body) &&
  !(body instanceof Stream) &&
  !(body instanceof Uint8Array);

/** Most media types whose JSON-ness is remembered (the service answers a handful). */
const MAX_KNOWN_TYPES = 64;

/**
 * What every JSON answer shares: every successful JSON answer carries a weak `ETag` and a
 * GET or HEAD whose `If-None-Match` matches it gets 304 without a body; answers to an
 * authenticated principal carry `Cache-Control: no-store`. The body is serialised here, once,
 * and encoded to UTF-8 once: the tag is of the exact bytes sent, and the bytes are what is sent
 * (a string body would be measured for `Content-Length` and encoded again on the socket).
 */
export function jsonAnswers(): Middleware {
  // whether a media type is JSON (`application/json`, `*/*+json`), as Koa's `response.is` says, per type
  const known = new Map<string, boolean>();
  const isJson = (response: Context['response']): boolean => {
    const type = response.type;
    let json = known.get(type);
    if (json === undefined) {
      json = Boolean(response.is('json', '+json'));
      if (known.size < MAX_KNOWN_TYPES) known.set(type, json);
    }
    return json;
  };
  return async function jsonAnswers(ctx, next) {
    await next();
    if (ctx.state.principal) ctx.set('Cache-Control', 'no-store');
    if (ctx.status < 200 || ctx.status >= 300 || ctx.status === 204) return;
    const body = ctx.body;
    let bytes: Buffer;
    if (isJsonBody(body)) {
      if (!isJson(ctx.response)) ctx.type = 'application/json';
      bytes = Buffer.from(JSON.stringify(body));
    } else if (typeof body === 'string' && isJson(ctx.response)) {
      bytes = Buffer.from(body);
    } else {
      return;
    }
    ctx.body = bytes;
    const etag = weakEtag(ctx.response.type, bytes);
    ctx.set('ETag', etag);
    const condition = ctx.get('If-None-Match');
    if (condition && (ctx.method === 'GET' || ctx.method === 'HEAD') && noneMatch(condition, etag)) ctx.status = 304;
  };
}
