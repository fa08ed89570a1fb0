import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Whether an `Authorization` header carries `Bearer <token>`, compared in constant time (both
 * sides hashed first, so their lengths leak nothing); a blank token allows nothing. The check of
 * `metrics.token` on the web's `/metrics` and on the worker's metrics listener.
 */
export function scrapeAllowed(authorization: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '';
  // a blank token (the config refuses one) matches nothing: a request without the header would match an empty one
  return timingSafeEqual(digest(given), digest(token)) && token.trim() !== '';
}
