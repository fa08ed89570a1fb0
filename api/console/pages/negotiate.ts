/**
 * `ctx.negotiate({html, json})`, a controller helper: `html` for browsers and clients
 * accepting `*\/*` (or sending no `Accept`); `json` for `application/json`,
 * `application/hal+json`, the versioned media type and client-side page visits (`X-App-Page:
 * true`); a client that accepts HTML but whose route has only `json` gets JSON; otherwise 406
 * `APP_NOT_ACCEPTABLE` listing the media types the handlers answer with.
 */
import type { Context } from 'koa';
import type { NegotiateHandlers } from '../../context.ts';
import {
  JSON_MEDIA_TYPES,
  PAGE_VISIT_HEADER,
  pageRepresentation,
  representation,
} from '../../model-framework/routing/negotiate.ts';
import { mediaTypeNotAcceptable } from '../../http/not-acceptable.ts';
import { isAppError } from '../../../shared/errors/app-error.ts';
import { isRoleRefusal } from '../../../shared/access/actor.ts';
import type { PageError } from './page-object.ts';

export async function negotiate<T>(ctx: Context, handlers: NegotiateHandlers<T>): Promise<T> {
  const wanted = pageRepresentation({ get: (name) => ctx.get(name), accepts: (...types) => ctx.accepts(...types) });
  ctx.vary('Accept');
  ctx.vary(PAGE_VISIT_HEADER);
  if (wanted === 'html' && handlers.html) return handlers.html();
  if ((wanted === 'json' || wanted === 'html') && handlers.json) return handlers.json();
  const offered = [...(handlers.html ? ['text/html'] : []), ...(handlers.json ? JSON_MEDIA_TYPES : [])];
  throw mediaTypeNotAcceptable(ctx.path, ctx.get('Accept'), offered);
}

/** Whether the client wants JSON: it sent JSON, or it prefers a JSON media type. */
export const wantsJson = (ctx: Context): boolean =>
  !!ctx.is('json') || representation(ctx.accepts.bind(ctx)) === 'json';

/**
 * Runs a form's action; a refusal (an AppError below 500) shows the form's page again to a
 * browser, with the reason and the error's status (JSON clients get the problem+json answer).
 * A caller whose role may not run the action at all gets the refusal itself (a browser: the
 * console's error page, api/middleware/errors.ts): the form's page may show what it may not see.
 */
export async function orShowAgain(
  ctx: Context,
  action: () => Promise<void>,
  again: (errors: PageError[], status: number) => Promise<void>,
): Promise<void> {
  try {
    await action();
  } catch (error) {
    if (wantsJson(ctx) || !isAppError(error) || error.status >= 500 || isRoleRefusal(error)) throw error;
    if (error.headers) ctx.set(error.headers);
    await again(
      [
        {
          message: error.message,
          ...(error.code ? { code: error.code } : {}),
          status: error.status,
          ...(error.data ? { data: error.data } : {}),
        },
      ],
      error.status,
    );
  }
}
