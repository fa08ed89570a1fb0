/**
 * What the web process adds to Koa's `ctx` (Express-style `req`/`res` helpers), typed once here.
 *
 * - `ctx.state.requestId`: the request id (Express-style `req.id`).
 * - `ctx.state.apiVersion`: `'v1'` style version asked for in `Accept`, or null (Express-style
 *   `req.apiVersion`); on a versioned route that the client accepts, the route's version.
 * - `ctx.state.acceptedVersions`: every version `Accept` admits, with its `q`.
 * - `ctx.state.principal`: the authenticated caller, set by the `user` slot (token or session).
 * - `ctx.state.route`: the matched route's declaration.
 * - `ctx.pagination()`, `ctx.boom`, `ctx.render()`, `ctx.negotiate()`, `ctx.webhooks`: on every request; `ctx.resource()`,
 *   `ctx.collection()`, `ctx.permit()`, `ctx.model`, `ctx.models`: on routed requests.
 */
import type { Model, Models } from './model-framework/data/model.ts';
import type { Pagination } from './hal/pagination.ts';
import type { CollectionOptions, PresentOptions } from './hal/present.ts';
import type { ErrorHelpers } from './middleware/error-helpers.ts';
import type { RenderOptions } from './console/pages/render.ts';
import type { Principal } from './model-framework/routing/roles.ts';
import type { CompiledRoute } from './model-framework/routing/table.ts';
import type { RequestWebhooks } from './model-framework/routing/webhooks-context.ts';

/** The two representations `negotiate()` chooses between. */
export interface NegotiateHandlers<T> {
  /** For browsers and clients accepting anything. */
  html?: () => T | Promise<T>;
  /** For `application/json`, `application/hal+json` and `application/vnd.app.v1+json`. */
  json?: () => T | Promise<T>;
}

/** Which kind of HAL answer a helper produced (read by the HAL guard). */
export type HalKind = 'resource' | 'collection';

declare module 'koa' {
  interface DefaultState {
    requestId: string;
    apiVersion: string | null;
    /** Every API version `Accept` admits (`q` above 0), version -> `q`. */
    acceptedVersions?: ReadonlyMap<string, number>;
    principal?: Principal;
    route?: CompiledRoute;
    hal?: { kind: HalKind };
    /** The page `ctx.render` answered (its page object is not HAL: the HAL guard leaves it alone). */
    page?: string;
    signal?: AbortSignal;
    /** The form key of the CSRF token a form sent in `_csrf` (api/auth/csrf.ts): one submission of one rendered form. */
    formKey?: string;
    /** The query parameters the running action declared (`acceptsQuery`): its paging links repeat them. */
    acceptedQuery?: { readonly parameters: readonly string[] };
  }

  interface DefaultContext {
    /** `{page, perPage, skip, limit, offset}` from `?page=` and `?per_page=`; 400 `APP_PAGINATION_INVALID` on bad values. */
    pagination(): Pagination;
    /** Throwing problem helpers (Express-style `res.boom`). */
    boom: ErrorHelpers;
    /** Answers one record as HAL (Express-style `res.resource`). */
    resource(record: object, options?: PresentOptions): Promise<void>;
    /** Answers a page of records as HAL (Express-style `res.collection`). */
    collection(records: readonly object[], options?: CollectionOptions): Promise<void>;
    /** Runs the handler for the representation the client prefers; 406 when it accepts neither. */
    negotiate<T>(handlers: NegotiateHandlers<T>): Promise<T>;
    /**
     * Answers page `page` (Express `res.render`): the page object to JSON clients and client-side
     * visits, the page's template to browsers; `options.graphql` is run as the request's
     * principal and its result becomes `data` (api/console/pages/render.ts).
     */
    render(page: string, props?: Record<string, unknown>, options?: RenderOptions): Promise<void>;
    /** Only the named fields of the request body (Express-style `req.permit`). */
    permit(...names: string[]): Record<string, unknown>;
    /**
     * The route's model (resources/crud routes served by a model); its reads and writes apply the
     * tenant rules for the request's principal (api/model-framework/data/guarded-models.ts).
     */
    model?: Model;
    /** Every model of the application, reading and writing as `model` does. */
    models: Models;
    /**
     * The webhook core as the request's caller (`register`, `emit`, `rotate`, …): its role and
     * tenant decide, exactly as in the webhook API (api/model-framework/routing/webhooks-context.ts).
     */
    webhooks: RequestWebhooks;
  }
}
