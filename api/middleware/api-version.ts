import type { Middleware } from 'koa';

const VERSIONED = /application\/vnd\.app\.(v\d+)\+json\s*(?:;([^,]*))?/gi;

/**
 * The API versions a client names in `Accept` (`application/vnd.app.v1+json;q=0.5`), each with
 * its `q` (1 when not given), in the order given; `q=0` means "not this one": such a version is
 * kept with `q` 0, so a route of that version can refuse it. A version named twice keeps its
 * highest `q`.
 */
export function acceptedVersions(accept: string): ReadonlyMap<string, number> {
  const accepted = new Map<string, number>();
  for (const match of accept.matchAll(VERSIONED)) {
    const q = Number(/(?:^|;)\s*q\s*=\s*([\d.]+)/.exec(match[2] ?? '')?.[1] ?? 1);
    const version = match[1].toLowerCase();
    if (!(q <= (accepted.get(version) ?? -1))) accepted.set(version, q);
  }
  return accepted;
}

/**
 * The API version a client asks for with `Accept: application/vnd.app.v1+json`: `'v1'`, or null
 * when no versioned type is in `Accept`. Among several, the one with the highest `q` wins (the
 * first on a tie); `q=0` means "not this one". A versioned route serves its own version whenever
 * the client accepts it, at any `q` (version-guard.ts).
 */
export function requestedVersion(accept: string): string | null {
  let best: { version: string; q: number } | null = null;
  for (const [version, q] of acceptedVersions(accept))
    if (q > 0 && (best === null || q > best.q)) best = { version, q };
  return best?.version ?? null;
}

/** Most `Accept` values whose version is remembered (clients send a handful; others are read each time). */
const MAX_KNOWN_ACCEPTS = 64;

interface Asked {
  version: string | null;
  accepted: ReadonlyMap<string, number>;
}

/**
 * Sets `ctx.state.apiVersion` (the preferred version) and `ctx.state.acceptedVersions` (every
 * version the client names, with its `q`; 0 for one it refuses) from `Accept`; routes declared with a `version` check them
 * (version guard).
 */
export function apiVersion(): Middleware {
  const known = new Map<string, Asked>();
  return async function apiVersion(ctx, next) {
    const accept = ctx.get('Accept');
    let asked = known.get(accept);
    if (asked === undefined) {
      const accepted = acceptedVersions(accept);
      asked = { version: requestedVersion(accept), accepted };
      if (known.size < MAX_KNOWN_ACCEPTS) known.set(accept, asked);
    }
    ctx.state.apiVersion = asked.version;
    ctx.state.acceptedVersions = asked.accepted;
    await next();
  };
}
