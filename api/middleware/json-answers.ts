import { createHash } from 'node:crypto';
import { Stream } from 'node:stream';
import type { Middleware } from 'koa';

/** A weak validator of a representation: same media type and text, same tag. */
export const weakEtag = (type: string, text: string): string =>
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
  typeof body === 'object' && body !== null && !Buffer.isBuffer(body) && !(body instanceof Stream) && !(body instanceof Uint8Array);

/**
 * Common response behaviour (spec): every successful JSON answer carries a weak `ETag` and a
 * GET or HEAD whose `If-None-Match` matches it gets 304 without a body; answers to an
 * authenticated principal carry `Cache-Control: no-store`. The body is serialised here, once,
 * so the tag is of the exact bytes sent.
 */
export function jsonAnswers(): Middleware {
  return async function jsonAnswers(ctx, next) {
    await next();
    if (ctx.state.principal) ctx.set('Cache-Control', 'no-store');
    if (ctx.status < 200 || ctx.status >= 300 || ctx.status === 204) return;
    const body = ctx.body;
    let text: string;
    if (isJsonBody(body)) {
      if (!ctx.response.is('json', '+json')) ctx.type = 'application/json';
      text = JSON.stringify(body);
      ctx.body = text;
    } else if (typeof body === 'string' && ctx.response.is('json', '+json')) {
      text = body;
    } else {
      return;
    }
    const etag = weakEtag(ctx.response.type, text);
    ctx.set('ETag', etag);
    const condition = ctx.get('If-None-Match');
    if (condition && (ctx.method === 'GET' || ctx.method === 'HEAD') && noneMatch(condition, etag)) ctx.status = 304;
  };
}
