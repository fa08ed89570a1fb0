import type { Middleware } from 'koa';

const VERSIONED = /application\/vnd\.app\.(v\d+)\+json\s*(?:;([^,]*))?/gi;

/**
 * The API version a client asks for with `Accept: application/vnd.app.v1+json`: `'v1'`, or null
 * when no versioned type is in `Accept`. Among several, the one with the highest `q` wins (the
 * first on a tie); `q=0` means "not this one".
 */
export function requestedVersion(accept: string): string | null {
  let best: { version: string; q: number } | null = null;
  for (const match of accept.matchAll(VERSIONED)) {
    const q = Number(/(?:^|;)\s*q\s*=\s*([\d.]+)/.exec(match[2] ?? '')?.[1] ?? 1);
    if (q > 0 && (best === null || q > best.q)) best = { version: match[1].toLowerCase(), q };
  }
  return best?.version ?? null;
}

/** Most `Accept` values whose version is remembered (clients send a handful; others are read each time). */
const MAX_KNOWN_ACCEPTS = 64;

/** Sets `ctx.state.apiVersion` from `Accept`; routes declared with a `version` check it (version guard). */
export function apiVersion(): Middleware {
  const known = new Map<string, string | null>();
  return async function apiVersion(ctx, next) {
    const accept = ctx.get('Accept');
    let version = known.get(accept);
    if (version === undefined) {
      version = requestedVersion(accept);
      if (known.size < MAX_KNOWN_ACCEPTS) known.set(accept, version);
    }
    ctx.state.apiVersion = version;
    await next();
  };
}
