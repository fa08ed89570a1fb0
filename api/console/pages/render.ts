/**
 * `ctx.render(page, props, {graphql: {query, variables}})` (docs/accounts-and-console.md "Console"): runs the page's
 * query through the service's own GraphQL schema as the request's principal (in process: the
 * resolvers, roles and tenant scope of `/_app/gql`, without its HTTP limits), then answers the page
 * object (page-object.ts) to JSON clients and client-side visits (`X-App-Page: true`), or the
 * page's Eta template (api/console/views/, escaped by default) to browsers and `*\/*`. A query that fails
 * reaches the page as `errors` (a root record out of reach makes the page a 404), never a 500.
 */
import { fileURLToPath } from 'node:url';
import type { Context } from 'koa';
import { Eta } from 'eta';
import { createCsrfToken, createFormToken } from '../../../shared/accounts/csrf.ts';
import type { Config } from '../../../shared/config/index.ts';
import type { PortalPrincipal, UserPrincipal } from '../../../shared/tokens/principal.ts';
import { anonymousCsrfSecret, type CookieSettings } from '../../accounts/cookies.ts';
import { sessionOf } from '../../auth/session-strategy.ts';
import type { GraphqlService } from '../../graphql/service.ts';
import type { Links } from '../../hal/links.ts';
import {
  JSON_MEDIA_TYPES,
  jsonContentType,
  PAGE_VISIT_HEADER,
  pageRepresentation,
} from '../../model-framework/routing/negotiate.ts';
import { mediaTypeNotAcceptable } from '../../http/not-acceptable.ts';
import { pageErrors, pageStatus, type PageError, type PageObject } from './page-object.ts';
import { VIEW_HELPERS } from './view-helpers.ts';
import { fieldErrors } from './field-errors.ts';
import { principalMay } from '../../../shared/access/actor.ts';
import type { Operation } from '../../../shared/access/permissions.ts';

/** The Eta templates of every page (the console's and the account pages'), `<page>.eta`. */
export const VIEWS_DIR = fileURLToPath(new URL('../views/', import.meta.url));

/** The templates, read once in production and afresh at each render elsewhere (edits show without a restart). */
export const createViews = (config: Pick<Config, 'env'>) =>
  new Eta({ views: VIEWS_DIR, cache: config.env === 'production' });

export interface RenderDeps {
  config: Pick<Config, 'graphql' | 'env'>;
  cookies: CookieSettings;
  views: Eta;
  /** The process's GraphQL service (built at start; undefined when `graphql` is false). */
  graphql?: () => GraphqlService | undefined;
  /** The paths every page object carries. */
  paths: Readonly<Record<string, string | null>>;
}

export interface PageQuery {
  query: string;
  variables?: Record<string, unknown> | null;
}

export interface RenderOptions {
  /** The page's GraphQL query; its result becomes `data`. */
  graphql?: PageQuery;
  /** The answer's status (default 200, or what a failed root field of the query says). */
  status?: number;
  /** Errors to show besides the query's (a refused form). */
  errors?: PageError[];
  /** `_links` besides `self`: the actions this principal may take (a function: made from the query's data). */
  links?: Links | ((data: any) => Links);
  /** The user to show (default: the request's signed-in user or portal session). */
  user?: Record<string, unknown> | null;
  /** A line for browsers only (a change just made), never in the page object. */
  notice?: string;
}

/** The secret of the request's CSRF tokens: its session's, else the anonymous `app_csrf` cookie's. */
const csrfSecretOf = (ctx: Context, cookies: CookieSettings): string => {
  const session = sessionOf(ctx.state.principal);
  return session ? session.csrfSecret : (anonymousCsrfSecret(ctx, cookies, true) as string);
};

/** The CSRF token for the request's next unsafe request (no form key: a client sends it as often as it likes). */
export function csrfTokenFor(ctx: Context, cookies: CookieSettings): string {
  return createCsrfToken(csrfSecretOf(ctx, cookies));
}

/**
 * What a template is handed: the page object with, in place of its `csrfToken`, a getter that
 * makes a new token with a fresh form key (shared/accounts/csrf.ts) each time a template reads it.
 * Every form fills its `_csrf` field from `it.csrfToken`, so each rendered form, those added later
 * included, carries its own key with no change to its template, and the console acts once per
 * form however often the browser sends it (api/console/form-once.ts). Two forms of one page (one
 * button per row) get two keys. The page object answered as JSON keeps the plain token: a
 * client that reads it sends it with every request, and each of them acts; so does the page's
 * `<meta name="csrf-token">` (`headerCsrfToken`), for scripts that send it as `X-CSRF-Token`.
 */
function templateData(secret: string, data: Record<string, unknown>): Record<string, unknown> {
  data.headerCsrfToken = data.csrfToken;
  return Object.defineProperty(data, 'csrfToken', {
    get: () => createFormToken(secret),
    enumerable: true,
    configurable: true,
  });
}

/** Who a page shows as signed in: a user, a tenant portal session (`portal: true`, no email), or null. */
export function pageUser(
  ctx: Context,
): { id: string; email: string | null; role: string; owner: string | null; portal?: true } | null {
  const principal = ctx.state.principal as UserPrincipal | PortalPrincipal | undefined;
  if (principal?.kind === 'user')
    return { id: principal.userId, email: principal.email, role: principal.roles[0], owner: principal.owner };
  if (principal?.kind === 'portal')
    return { id: principal.id, email: null, role: principal.roles[0], owner: principal.owner, portal: true };
  return null;
}

/** Runs a page's query as the request's principal; GraphQL off or failing gives errors, never a throw. */
async function runQuery(
  ctx: Context,
  deps: RenderDeps,
  query: PageQuery,
): Promise<{ data: unknown; errors?: PageError[] }> {
  const service = deps.graphql?.();
  if (!service)
    return {
      data: null,
      errors: [
        {
          message: 'the GraphQL service is off (`graphql: false`): this page needs it',
          code: 'APP_GRAPHQL_UNAVAILABLE',
          status: 503,
        },
      ],
    };
  const result = await service.run(query.query, query.variables ?? null, {
    principal: ctx.state.principal,
    requestId: ctx.state.requestId,
    signal: ctx.state.signal,
  });
  return { data: result.data ?? null, errors: pageErrors(result.errors) };
}

/** Renders `page` with `props` (see the file's comment). */
export async function renderPage(
  ctx: Context,
  deps: RenderDeps,
  page: string,
  props: Record<string, unknown> = {},
  options: RenderOptions = {},
): Promise<void> {
  const wanted = pageRepresentation({ get: (name) => ctx.get(name), accepts: (...types) => ctx.accepts(...types) });
  if (wanted === false) throw mediaTypeNotAcceptable(ctx.path, ctx.get('Accept'), ['text/html', ...JSON_MEDIA_TYPES]);
  const queried = options.graphql ? await runQuery(ctx, deps, options.graphql) : undefined;
  const errors = [...(options.errors ?? []), ...(queried?.errors ?? [])];
  // read once: without a session, the first read makes the anonymous cookie's secret
  const csrfSecret = csrfSecretOf(ctx, deps.cookies);
  const object: PageObject = {
    page,
    data: queried ? queried.data : props,
    ...(queried ? { props } : {}),
    user: options.user === undefined ? pageUser(ctx) : options.user,
    paths: deps.paths,
    csrfToken: createCsrfToken(csrfSecret),
    ...(errors.length > 0 ? { errors } : {}),
    ...(options.graphql
      ? {
          graphql: {
            endpoint: deps.config.graphql ? deps.config.graphql.path : null,
            query: options.graphql.query,
            variables: options.graphql.variables ?? null,
          },
        }
      : {}),
    _links: {
      self: { href: ctx.originalUrl },
      ...(typeof options.links === 'function' ? options.links(queried ? queried.data : props) : options.links),
    },
  };
  ctx.state.page = page;
  ctx.status = options.status ?? pageStatus(queried?.errors, queried !== undefined && queried.data === null);
  ctx.set('Cache-Control', 'no-store');
  ctx.vary('Accept');
  ctx.vary(PAGE_VISIT_HEADER);
  if (wanted === 'json') {
    ctx.type = jsonContentType((...types) => ctx.accepts(...types));
    ctx.body = object;
    return;
  }
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = await deps.views.renderAsync(
    `./${page}`,
    templateData(csrfSecret, {
      ...object,
      props,
      notice: options.notice,
      h: VIEW_HELPERS,
      // a refused form's errors tied to the fields they name (field-errors.ts)
      ...fieldErrors(errors),
      // whether the request's principal may run an operation, by the permission table: the
      // layout's navigation offers a page only to those who may use it
      may: (operation: Operation) => principalMay(ctx.state.principal, operation),
    }),
  );
}
