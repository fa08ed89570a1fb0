/**
 * The GraphiQL page of the GraphQL path, in development only: a browser GET of
 * `graphql.path` answers the IDE, and its assets are served from `<path>/ruru-static/`. The IDE
 * is Ruru (Graphile's GraphiQL distribution), a development dependency loaded on first use, so
 * nothing of it is served from a CDN and production never loads it. The development CSP allows
 * what it needs (inline config script, `blob:` workers); other environments never mount this.
 * Opened with a session (the console's link), the page sends the session's CSRF token as
 * `X-CSRF-Token` on every request to the GraphQL path: the path refuses a cookie-authenticated
 * POST without it.
 */
import type { Context, Middleware } from 'koa';
import type { Config } from '../../shared/config/index.ts';
import { createCsrfToken } from '../../shared/accounts/csrf.ts';
import { sessionOf } from '../auth/session-strategy.ts';

export const GRAPHIQL_ASSETS = 'ruru-static/';

/**
 * Whether a browser's GET of the GraphQL path answers GraphiQL: in development, with GraphQL on.
 * Elsewhere that GET answers a GraphQL error as JSON, so no page links there.
 */
export const servesGraphiql = (config: Pick<Config, 'env' | 'graphql'>): boolean =>
  config.env === 'development' && config.graphql !== false;

interface Ruru {
  ruruHTML(config: { endpoint: string; staticPath: string; htmlParts?: RuruHtmlParts }): string;
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

/** The parts of Ruru's page this file adds to (each made from Ruru's own). */
interface RuruHtmlParts {
  metaTags?: (original: string) => string;
  headerScripts?: (original: string) => string;
}

let loading: Promise<Ruru> | undefined;
function ruru(): Promise<Ruru> {
  loading ??= Promise.all([import('ruru/server'), import('ruru/static')]).then(([server, assets]) => ({
    ruruHTML: (server as unknown as Ruru).ruruHTML,
    getStaticFile: (assets as unknown as Ruru).getStaticFile,
  }));
  return loading;
}

/**
 * The page's icon: an empty one. Ruru's page names none, so a browser would ask for
 * `/favicon.ico`, which nothing serves (a 404 in the browser's console); `data:` images are
 * allowed by the CSP everywhere.
 */
const ICON_TAG = '<link rel="icon" href="data:," />';

/** A browser asking for a page: HTML preferred over both GraphQL media types. */
const wantsPage = (ctx: Context) =>
  ctx.method === 'GET' &&
  ctx.querystring === '' &&
  ctx.accepts(['text/html', 'application/graphql-response+json', 'application/json']) === 'text/html';

/**
 * The session's CSRF token in the page as the console's pages carry it (`<meta
 * name="csrf-token">`), and a script run before the IDE's that adds it as `X-CSRF-Token` to every
 * request the page sends to the GraphQL path (the schema's introspection included, which does
 * not use the IDE's headers editor).
 */
function csrfParts(token: string, path: string): RuruHtmlParts {
  const script = `(() => {
  const token = document.querySelector('meta[name="csrf-token"]').content;
  const send = window.fetch.bind(window);
  window.fetch = (input, init = {}) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.origin !== location.origin || url.pathname !== ${JSON.stringify(path)} || request.headers.has('X-CSRF-Token'))
      return send(input, init);
    const headers = new Headers(request.headers);
    headers.set('X-CSRF-Token', token);
    return send(new Request(request, { headers }));
  };
})();`;
  return {
    metaTags: (original) => `${original}\n${ICON_TAG}\n<meta name="csrf-token" content="${token}" />`,
    headerScripts: (original) => `<script>${script}</script>\n${original}`,
  };
}

/** The GraphiQL middleware for `path` (mounted in development only). */
export function graphiql(options: { path: string }): Middleware {
  const staticPath = `${options.path}/${GRAPHIQL_ASSETS}`;
  return async function graphiql(ctx, next) {
    if (ctx.path === options.path && wantsPage(ctx)) {
      const { ruruHTML } = await ruru();
      ctx.type = 'text/html';
      const session = sessionOf(ctx.state.principal);
      ctx.set('Cache-Control', 'no-store'); // it may carry the session's token
      ctx.body = ruruHTML({
        endpoint: options.path,
        staticPath,
        htmlParts: session
          ? csrfParts(createCsrfToken(session.csrfSecret), options.path)
          : { metaTags: (original) => `${original}\n${ICON_TAG}` },
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
