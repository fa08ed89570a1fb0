import type { Context } from 'koa';

/**
 * This service's own origin as the request reached it: scheme and host (honouring `trustProxy`
 * through Koa's `protocol` and `host`). Not Koa's `ctx.origin`, which in Koa 3 is the client's
 * `Origin` header: trusting that would let any site vouch for itself.
 */
export const ownOrigin = (ctx: Context): string => `${ctx.protocol}://${ctx.host}`;
