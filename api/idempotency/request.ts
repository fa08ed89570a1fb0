import { createHash } from 'node:crypto';

/** What identifies the caller a key belongs to: the user, else the session, else the ip. */
export interface Caller {
  principalId?: string | null;
  sessionId?: string | null;
  ip: string;
}

/** `user:<id>`, else `session:<id>`, else `ip:<address>`. */
export function scopeOf(caller: Caller): string {
  if (caller.principalId) return `user:${caller.principalId}`;
  if (caller.sessionId) return `session:${caller.sessionId}`;
  return `ip:${caller.ip}`;
}

/**
 * The caller of a request with `principal`: a signed-in user or a token holder is itself; a
 * tenant portal session has no user (its principal's id is shared by every portal session of
 * the owner), so it is its session; an anonymous request its ip.
 */
export function callerOf(principal: { id: string; kind?: string; sessionId?: string } | undefined, ip: string): Caller {
  if (principal?.kind === 'portal') return { sessionId: principal.sessionId ?? null, ip };
  return { principalId: principal?.id ?? null, ip };
}

/** The entry key of (scope, key): hashed, so any key fits every backend. */
export function recordKey(scope: string, key: string): string {
  return `idem:${createHash('sha256').update(scope).update('\0').update(key).digest('base64url')}`;
}

/**
 * What makes two requests "the same request" (same method, path and body): the method, the
 * path with its query string, and the body as received. Bodies the service does not parse
 * (neither JSON nor a form) are represented by their type and length.
 */
export function fingerprint(request: { method: string; url: string; body: string }): string {
  return createHash('sha256')
    .update(request.method.toUpperCase())
    .update('\n')
    .update(request.url)
    .update('\n')
    .update(request.body)
    .digest('base64url');
}
