/**
 * A request path as the routers match it, for checks that pick requests by path (the CSRF
 * check's sign-in and anonymous form paths, the authentication limiter's paths): @koa/router
 * matches without regard to case and with or without trailing slashes, so `/LOGIN` and `/login/`
 * reach the same handler as `/login`. A check that compared the path as sent would let those
 * spellings through unchecked; comparing this form of both sides keeps the check on every path
 * the handler answers.
 */
export const routePath = (path: string): string =>
  (path.length > 1 ? path.replace(/\/+$/, '') || '/' : path).toLowerCase();
