/**
 * What every console page shares: its dependencies (the same core functions as REST, GraphQL and
 * the CLI), the sign-in guard, the caller as the core's actor (the core decides what its role
 * may do; pages only ask the same table which buttons to show), form fields, and the
 * answer to a form: 303 to the page that shows the result (`?done=<what>`, a fixed sentence), or
 * the form's page again with the reason and the error's status.
 */
import type { Context, Middleware } from 'koa';
import type { AccountDeps } from '../../shared/accounts/deps.ts';
import type { Config } from '../../shared/config/index.ts';
import { badRequest, unauthorized } from '../../shared/errors/app-error.ts';
import { actorOf, authorize, principalMay, type Actor } from '../../shared/access/actor.ts';
import type { Operation } from '../../shared/access/permissions.ts';
import type { Logger } from '../../shared/log/logger.ts';
import type { SharedStore } from '../../shared/stores/types.ts';
import type { TokenListingDeps } from '../../shared/tokens/api-tokens.ts';
import type { WebhookDeps } from '../../shared/webhooks/deps.ts';
import type { PageContext } from '../accounts/page.ts';
import { ACCOUNT_PATHS } from '../accounts/paths.ts';
import { orShowAgain, wantsJson } from './pages/negotiate.ts';
import { refererPath } from './error-page.ts';
import type { Principal } from '../model-framework/routing/roles.ts';

export interface ConsoleDeps {
  config: Config;
  log: Logger;
  webhooks: WebhookDeps;
  accounts: AccountDeps;
  tokens: TokenListingDeps;
  pages: PageContext;
  /** The shared store: where a form's first answer is kept (form-once.ts) and which one-time values were shown (once.ts). */
  shared: Pick<SharedStore, 'entries' | 'logFailure'>;
}

/**
 * Pages need a caller: browsers go to the sign-in page (and come back), JSON clients get 401. A
 * form sent after its session ended (it expired, or the user signed out in another tab) did
 * nothing: its browser goes to the sign-in page, which says so (`?ended=1`), and comes back to
 * the form's page (its Referer), not to the form's address, which a GET would answer 405.
 */
export const signedIn: Middleware = async function signedIn(ctx, next) {
  if (ctx.state.principal) return next();
  if (wantsJson(ctx)) throw unauthorized('sign in first', { code: 'APP_UNAUTHENTICATED' });
  if (ctx.method === 'GET' || ctx.method === 'HEAD')
    return ctx.redirect(`${ACCOUNT_PATHS.login}?next=${encodeURIComponent(ctx.originalUrl)}`);
  ctx.status = 303;
  ctx.redirect(`${ACCOUNT_PATHS.login}?${new URLSearchParams({ next: refererPath(ctx) ?? '/', ended: '1' })}`);
};

export const principalOf = (ctx: Context): Principal => ctx.state.principal as Principal;
/** The caller as the core takes it: every form hands it to its core function, which decides. */
export const actorFor = (ctx: Context): Actor => actorOf(ctx.state.principal);
/** Whether the caller reaches every tenant (and so picks one, or sees the owner fields). */
export const allTenants = (ctx: Context): boolean => actorFor(ctx).scope.kind === 'all';
/** Whether the caller may run `operation` (the permission table): which buttons and fields a page offers. */
export const may = (ctx: Context, operation: Operation): boolean => principalMay(ctx.state.principal, operation);

/** 403 `APP_FORBIDDEN` unless the caller may run `operation`: a page that leads only to it, or shows what it reads. */
export const pageFor = (ctx: Context, operation: Operation): void => authorize(actorFor(ctx), operation);

/** A form's fields (JSON bodies too). */
export function formOf(ctx: Context): Record<string, unknown> {
  const body = ctx.request.body;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

/**
 * One text field (a repeated field: its last value); '' and absent give undefined. A number or a
 * boolean of a JSON body is read as its text. An object (a JSON object, or a form's bracketed
 * `owner[a]=…`) is no text: 400 `APP_BODY_INVALID` naming the field. Read as text it would be
 * `[object Object]` (a token minted for that owner), and one whose own `toString` is not a
 * function cannot be read as text at all.
 */
export function field(source: Record<string, unknown>, name: string): string | undefined {
  const value = source[name];
  const one = Array.isArray(value) ? value[value.length - 1] : value;
  if (one === undefined || one === null) return undefined;
  if (typeof one === 'object')
    throw badRequest(
      `the form field ${JSON.stringify(name)} must be text, not ${Array.isArray(one) ? 'a list' : 'an object'}`,
      {
        code: 'APP_BODY_INVALID',
        data: { field: name },
      },
    );
  const text = String(one).trim();
  return text === '' ? undefined : text;
}

/** A query parameter as {@link field} reads it. */
export const param = (ctx: Context, name: string): string | undefined =>
  field(ctx.query as Record<string, unknown>, name);

/** The charts' window from `?window=`: `hour` (the last hour, per minute), else `day` (the last 24 hours, per hour). */
export const windowParam = (ctx: Context): 'day' | 'hour' => (param(ctx, 'window') === 'hour' ? 'hour' : 'day');

/** The owner an admin picked (`?owner=`; `?owner=-`: endpoints without owner); members and viewers have theirs. */
export function pickedOwner(ctx: Context): { owner?: string; withoutOwner?: boolean } {
  if (!allTenants(ctx)) return {};
  const owner = param(ctx, 'owner');
  if (owner === undefined) return {};
  return owner === '-' ? { withoutOwner: true } : { owner };
}

/** The fixed sentences a page shows after a form redirected to it (`?done=<key>`). */
export const DONE: Readonly<Record<string, string>> = Object.freeze({
  updated: 'The endpoint is updated.',
  enabled: 'The endpoint is enabled: deliveries resume.',
  disabled: 'The endpoint is disabled: emits no longer reach it.',
  removed: 'The endpoint is removed with its secrets and deliveries.',
  tested: 'The test event is queued.',
  retried: 'The delivery is queued again.',
  resent: 'The delivery is queued to be sent again.',
  replayed: 'The dead deliveries are queued again.',
  revoked: 'The token is revoked.',
  'user-disabled': 'The user is disabled: its sessions ended and its tokens are revoked.',
  'user-enabled': 'The user may sign in again.',
  // said with the owner and the counts by the Tenants page itself; this is what is left without them
  'portal-ended': "The tenant's portal sessions ended.",
  'event-type-added': 'The event type is added to the catalog.',
  'event-type-updated': 'The event type is changed.',
  'event-type-deprecated': 'The event type is marked deprecated: emits of it are still accepted.',
  'event-type-undeprecated': 'The event type is no longer deprecated.',
  // a one-time value's page reached again (a reload, going back, the form sent again): its value is gone
  'secret-shown':
    'The signing secret of this endpoint was shown once, when it was registered, and is not shown again. If it was not kept, rotate the secret to get a new one.',
  'rotated-shown':
    'The new signing secret was shown once, after the rotation, and is not shown again. If it was not kept, rotate again.',
});

/** What a page that shows a one-time value says when it comes back after it was shown (once.ts `{shown: true}`). */
export const SHOWN_ONCE = Object.freeze({
  token:
    'This token was shown once, when it was minted, and cannot be shown again. If it was not kept, mint a new one (and revoke the one not kept).',
  link: 'This set-password link was shown once and is not shown again. If it was not kept, make a new link.',
  portal: 'This portal link was shown once and is not shown again. If it was not kept, make a new one.',
});

export const doneNotice = (ctx: Context): string | undefined => DONE[param(ctx, 'done') ?? ''];

/** After a form: 303 to `path` saying what was done. */
export function redirectDone(
  ctx: Context,
  path: string,
  done: keyof typeof DONE,
  extra: Record<string, string> = {},
): void {
  const search = new URLSearchParams({ done: String(done), ...extra });
  ctx.status = 303;
  ctx.redirect(`${path}${path.includes('?') ? '&' : '?'}${search}`);
}

export { orShowAgain, wantsJson };
