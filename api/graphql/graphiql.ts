/**
 * The GraphiQL page of the GraphQL path, in development only: a browser GET of
 * `graphql.path` answers the IDE, and its assets are served from `<path>/ruru-static/`. The IDE
 * is Ruru (Graphile's GraphiQL distribution), a development dependency loaded on first use, so
 * nothing of it is served from a CDN and production never loads it. The development CSP allows
 * what it needs (inline config script, `blob:` workers); other environments never mount this.
 * Opened with a session (the console's link), the IDE sends the session's CSRF token as
 * `X-CSRF-Token` on every request (its headers editor starts with it), as the console's pages do:
 * the GraphQL path refuses a cookie-authenticated POST without it.
 */
import type { Context, Middleware } from 'koa';
import { createCsrfToken } from '../../shared/accounts/csrf.ts';
import { sessionOf } from '../auth/session-strategy.ts';

export const GRAPHIQL_ASSETS = 'ruru-static/';

interface Ruru {
  ruruHTML(config: { endpoint: string; staticPath: string; clientConfig?: { initialHeaders?: string } }): string;
  getStaticFile(context: {
    staticPath: string;
    urlPath: string;
    acceptEncoding: string | undefined;
    disallowDevAssets?: boolean;
  }):
    | Promise<{ content: Buffer; headers: Record<string, string> } | null>
    | { content: Buffer; headers: Record<string, string> }
    | null;
}

let loading: Promise<Ruru> | undefined;
function ruru(): Promise<Ruru> {
  loading ??= Promise.all([import('ruru/server'), import('ruru/static')]).then(([server, assets]) => ({
    ruruHTML: (server as unknown as Ruru).ruruHTML,
    getStaticFile: (assets as unknown as Ruru).getStaticFile,
  }));
  return loading;
}

/** A browser asking for a page: HTML preferred over both GraphQL media types. */
const wantsPage = (ctx: Context) =>
  ctx.method === 'GET' &&
  ctx.querystring === '' &&
  ctx.accepts(['text/html', 'application/graphql-response+json', 'application/json']) === 'text/html';

/** The GraphiQL middleware for `path` (mounted in development only). */
export function graphiql(options: { path: string }): Middleware {
  const staticPath = `${options.path}/${GRAPHIQL_ASSETS}`;
  return async function graphiql(ctx, next) {
    if (ctx.path === options.path && wantsPage(ctx)) {
      const { ruruHTML } = await ruru();
      ctx.type = 'text/html';
      const session = sessionOf(ctx.state.principal);
      const initialHeaders = session
        ? JSON.stringify({ 'X-CSRF-Token': createCsrfToken(session.csrfSecret) }, null, 2)
        : undefined;
      ctx.set('Cache-Control', 'no-store'); // it carries the session's token
      ctx.body = ruruHTML({
        endpoint: options.path,
        staticPath,
        ...(initialHeaders ? { clientConfig: { initialHeaders } } : {}),
      });
      return;
    }
    if (ctx.method === 'GET' && ctx.path.startsWith(staticPath)) {
      const { getStaticFile } = await ruru();
      const file = await getStaticFile({
        staticPath,
        urlPath: ctx.path,
        acceptEncoding: ctx.get('Accept-Encoding') || undefined,
        disallowDevAssets: true,
      });
      if (!file) return next();
      for (const [name, value] of Object.entries(file.headers)) ctx.set(name, value);
      ctx.body = file.content;
      return;
    }
    return next();
  };
}
