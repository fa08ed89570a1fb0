/**
 * Tokens (mint, list, revoke: the caller's own, or every one for admins, by the rules of
 * `/api/v1/tokens`), and for admins users (invite by a set-password link, disable, enable, a new
 * link) and tenants (with a portal link for each, and the end of its portal sessions). The same
 * core functions as the API and the `tokens:*`, `users:*`, `portal:link` and `portal:end` commands.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { linkBase, passwordLinkUrl, setPasswordLinkFor } from '../../../shared/accounts/password-links.ts';
import {
  createPortalLink,
  endPortalSessions,
  PORTAL_ROLES,
  portalLinkUrl,
} from '../../../shared/accounts/portal-links.ts';
import { listTenants } from '../../../shared/accounts/tenants.ts';
import { createUser, listUsers, publicUser, setUserDisabled } from '../../../shared/accounts/users.ts';
import { parseDuration } from '../../../shared/config/units.ts';
import { ROLES } from '../../../shared/tokens/roles.ts';
import { tokenExpired } from '../../../shared/tokens/tokens.ts';
import { listTokensFor, mayMint, mintToken, revokeTokenFor } from '../../../shared/tokens/api-tokens.ts';
import { deepestPage } from '../../../shared/db/page-depth.ts';
import { ownOrigin } from '../../http/own-origin.ts';
import type { PageError } from '../pages/page-object.ts';
import {
  actorFor,
  allTenants,
  doneNotice,
  field,
  formOf,
  orShowAgain,
  pageFor,
  param,
  redirectDone,
  SHOWN_ONCE,
  signedIn,
  type ConsoleDeps,
} from '../context.ts';
import { pageChecked, pageParam } from '../paging.ts';
import { query } from '../pages/view-helpers.ts';
import { echo } from '../forms.ts';
import { CONSOLE_PATHS } from '../paths.ts';
import { onceDeps, showOnce, takeOnce, type Taken } from '../once.ts';

const TOKEN_FIELDS = ['name', 'role', 'owner', 'expires'] as const;
const USER_FIELDS = ['email', 'name', 'role', 'owner'] as const;
const PER_PAGE = 50;

const post = (href: string) => ({ href, method: 'POST' });

/** The Users page's filters from its query (`state`: enabled or disabled; `owner` `-`: users without owner), '' when not given. */
function userFilters(ctx: Context): { email: string; role: string; owner: string; state: string } {
  const state = param(ctx, 'state') ?? '';
  return {
    email: param(ctx, 'email') ?? '',
    role: param(ctx, 'role') ?? '',
    owner: param(ctx, 'owner') ?? '',
    state: state === 'enabled' || state === 'disabled' ? state : '',
  };
}

/** The Users page's page and filters as a query (`?…`, or ''), for a form on it to come back to that page. */
function listingQuery(ctx: Context): string {
  const page = pageParam(ctx);
  return query({ ...userFilters(ctx), page: page > 1 ? page : '' });
}

/** A count of a notice's query parameter: a whole number, else undefined. */
const countParam = (ctx: Context, name: string): number | undefined => {
  const count = Number(param(ctx, name) ?? Number.NaN);
  return Number.isSafeInteger(count) && count >= 0 ? count : undefined;
};

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** What the Tenants page says after a tenant's portal sessions were ended (`?done=portal-ended`). */
function portalEndedNotice(ctx: Context): string | undefined {
  const owner = param(ctx, 'owner');
  const sessions = countParam(ctx, 'sessions');
  if (param(ctx, 'done') !== 'portal-ended' || owner === undefined || sessions === undefined) return undefined;
  const links = countParam(ctx, 'links');
  const spent =
    links === undefined ? '' : ` ${plural(links, 'unopened portal link is', 'unopened portal links are')} spent.`;
  return `${plural(sessions, 'portal session', 'portal sessions')} of ${owner} ended: signed out at their next request.${spent}`;
}

/** A list page's one-time value as its props: the value under `name`, or the notice that it was shown already. */
const shownOnce = (taken: Taken<unknown>, name: string, notice: string): Record<string, unknown> =>
  !taken ? {} : 'value' in taken ? { [name]: taken.value } : { notice };

export function accountRoutes(router: Router, deps: ConsoleDeps): void {
  const showTokens = async (
    ctx: Context,
    extra: {
      form?: Record<string, string>;
      minted?: unknown;
      errors?: PageError[];
      status?: number;
      notice?: string;
    } = {},
  ) => {
    const window = { page: pageParam(ctx), perPage: PER_PAGE };
    const actor = actorFor(ctx);
    const { records, total } = await listTokensFor(deps.tokens, actor, window);
    const canMint = mayMint(actor);
    await ctx.render(
      'console/tokens',
      {
        // an expired token is still listed (until revoked) but works no more: the page says which
        tokens: records.map((token) => ({ ...token, expired: tokenExpired(token, new Date()) })),
        total,
        ...window,
        pages: Math.ceil(total / PER_PAGE),
        // the listing refuses a page past the paging bound: the pager stops at this one
        deepestPage: deepestPage(PER_PAGE, deps.config.api.maxPageOffset),
        roles: ROLES,
        admin: allTenants(ctx),
        canMint,
        // why a caller without the mint form has none, rather than a page that just lacks it
        mintRefusal: canMint ? null : `A ${actor.role} mints no tokens: an admin mints a ${actor.role} token for you.`,
        form: extra.form ?? echo({}, TOKEN_FIELDS),
        minted: extra.minted ?? null,
      },
      {
        errors: extra.errors,
        status: extra.status,
        notice: extra.notice ?? doneNotice(ctx),
        links: canMint ? { mint: post(CONSOLE_PATHS.tokens) } : {},
      },
    );
  };

  router.get(CONSOLE_PATHS.tokens, signedIn, pageChecked, async (ctx) =>
    showTokens(ctx, shownOnce(await takeOnce(ctx, onceDeps(deps), CONSOLE_PATHS.tokens), 'minted', SHOWN_ONCE.token)),
  );

  router.post(CONSOLE_PATHS.tokens, signedIn, async (ctx) => {
    const form = formOf(ctx);
    await orShowAgain(
      ctx,
      async () => {
        const expires = field(form, 'expires');
        const ms = expires === undefined ? null : parseDuration(expires);
        const minted = await mintToken(deps.tokens, actorFor(ctx), {
          name: field(form, 'name') as string,
          ...(field(form, 'role') ? { role: field(form, 'role') as never } : {}),
          ...(field(form, 'owner') ? { owner: field(form, 'owner') } : {}),
          ...(expires === undefined ? {} : { expiresInMs: ms ?? (expires as never) }),
        });
        await showOnce(ctx, deps.pages.cookies, CONSOLE_PATHS.tokens, minted, () =>
          showTokens(ctx, { minted, status: 201 }),
        );
      },
      (errors, status) => showTokens(ctx, { form: echo(form, TOKEN_FIELDS), errors, status }),
    );
  });

  router.post('/tokens/:id/revoke', signedIn, async (ctx) => {
    await revokeTokenFor(deps.tokens, actorFor(ctx), ctx.params.id);
    redirectDone(ctx, CONSOLE_PATHS.tokens, 'revoked');
  });

  const showUsers = async (
    ctx: Context,
    extra: {
      form?: Record<string, string>;
      link?: unknown;
      errors?: PageError[];
      status?: number;
      notice?: string;
    } = {},
  ) => {
    const filters = userFilters(ctx);
    const window = { page: pageParam(ctx), perPage: PER_PAGE };
    const { records, total } = await listUsers({ sql: deps.accounts.sql, config: deps.config }, actorFor(ctx), {
      ...window,
      ...(filters.state === '' ? {} : { enabled: filters.state === 'enabled' }),
      ...(filters.role === '' ? {} : { role: filters.role }),
      ...(filters.owner === '' ? {} : { owner: filters.owner === '-' ? null : filters.owner }),
      ...(filters.email === '' ? {} : { email: filters.email }),
    });
    await ctx.render(
      'console/users',
      {
        users: records.map(publicUser),
        total,
        ...window,
        pages: Math.ceil(total / PER_PAGE),
        // the listing refuses a page past the paging bound: the pager stops at this one
        deepestPage: deepestPage(PER_PAGE, deps.config.api.maxPageOffset),
        filters,
        // where the disable, enable and new-link forms lead back to: this page of this listing
        listing: listingQuery(ctx),
        roles: ROLES,
        form: extra.form ?? { ...echo({}, USER_FIELDS), role: 'member' },
        link: extra.link ?? null,
      },
      {
        errors: extra.errors,
        status: extra.status,
        notice: extra.notice ?? doneNotice(ctx),
        links: { invite: post(CONSOLE_PATHS.users) },
      },
    );
  };

  /** A set-password link for the user `idOrEmail` (valid `auth.inviteTtl`), on `publicUrl` or this request's origin. */
  const setPasswordLink = async (
    ctx: Context,
    idOrEmail: string,
  ): Promise<{ email: string; url: string; expiresAt: Date }> => {
    const { user, token, expiresAt } = await setPasswordLinkFor(deps.accounts, actorFor(ctx), idOrEmail);
    return { email: user.email, url: passwordLinkUrl(linkBase(deps.accounts, ownOrigin(ctx)), token), expiresAt };
  };

  router.get(CONSOLE_PATHS.users, signedIn, pageChecked, async (ctx) => {
    pageFor(ctx, 'users.read');
    await showUsers(ctx, shownOnce(await takeOnce(ctx, onceDeps(deps), CONSOLE_PATHS.users), 'link', SHOWN_ONCE.link));
  });

  router.post(CONSOLE_PATHS.users, signedIn, async (ctx) => {
    const form = formOf(ctx);
    await orShowAgain(
      ctx,
      async () => {
        const user = await createUser(deps.accounts, actorFor(ctx), {
          email: field(form, 'email'),
          name: field(form, 'name'),
          role: field(form, 'role'),
          owner: field(form, 'owner') ?? null,
        });
        const link = await setPasswordLink(ctx, user.id);
        await showOnce(ctx, deps.pages.cookies, CONSOLE_PATHS.users, link, () => showUsers(ctx, { link, status: 201 }));
      },
      (errors, status) => showUsers(ctx, { form: echo(form, USER_FIELDS), errors, status }),
    );
  });

  for (const action of ['disable', 'enable'] as const) {
    router.post(`/users/:id/${action}`, signedIn, async (ctx) => {
      await setUserDisabled(deps.accounts, actorFor(ctx), ctx.params.id, action === 'disable');
      const back = listingQuery(ctx);
      redirectDone(ctx, `${CONSOLE_PATHS.users}${back}`, action === 'disable' ? 'user-disabled' : 'user-enabled');
    });
  }

  router.post('/users/:id/reset-link', signedIn, async (ctx) => {
    await orShowAgain(
      ctx,
      async () => {
        const link = await setPasswordLink(ctx, ctx.params.id);
        // back to the page and filters the form was sent from, as disable and enable lead
        await showOnce(
          ctx,
          deps.pages.cookies,
          CONSOLE_PATHS.users,
          link,
          () => showUsers(ctx, { link }),
          listingQuery(ctx),
        );
      },
      (errors, status) => showUsers(ctx, { errors, status }),
    );
  });

  const showTenants = async (
    ctx: Context,
    extra: {
      link?: unknown;
      errors?: PageError[];
      status?: number;
      notice?: string;
      /** What a refused link form held, shown again. */
      form?: Record<string, string>;
    } = {},
  ) => {
    const window = { page: pageParam(ctx), perPage: PER_PAGE };
    const { records, total } = await listTenants(deps.webhooks, actorFor(ctx), window);
    await ctx.render(
      'console/tenants',
      {
        tenants: records,
        total,
        ...window,
        pages: Math.ceil(total / PER_PAGE),
        // the listing refuses a page past the paging bound: the pager stops at this one
        deepestPage: deepestPage(PER_PAGE, deps.config.api.maxPageOffset),
        roles: PORTAL_ROLES,
        link: extra.link ?? null,
        form: extra.form ?? { owner: '', role: 'member' },
      },
      {
        errors: extra.errors,
        status: extra.status,
        notice: extra.notice ?? portalEndedNotice(ctx) ?? doneNotice(ctx),
        links: { portalLink: post(CONSOLE_PATHS.portalLink), portalEnd: post(CONSOLE_PATHS.portalEnd) },
      },
    );
  };

  router.get(CONSOLE_PATHS.tenants, signedIn, pageChecked, async (ctx) => {
    pageFor(ctx, 'tenants.read');
    await showTenants(
      ctx,
      shownOnce(await takeOnce(ctx, onceDeps(deps), CONSOLE_PATHS.tenants), 'link', SHOWN_ONCE.portal),
    );
  });

  router.post(CONSOLE_PATHS.portalLink, signedIn, async (ctx) => {
    const form = formOf(ctx);
    await orShowAgain(
      ctx,
      async () => {
        const link = await createPortalLink(deps.accounts, actorFor(ctx), {
          owner: field(form, 'owner'),
          role: field(form, 'role'),
        });
        const shown = {
          ...link,
          url: portalLinkUrl(linkBase(deps.accounts, ownOrigin(ctx)), link.token),
          token: undefined,
        };
        await showOnce(ctx, deps.pages.cookies, CONSOLE_PATHS.tenants, shown, () =>
          showTenants(ctx, { link: shown, status: 201 }),
        );
      },
      (errors, status) => showTenants(ctx, { errors, status, form: echo(form, ['owner', 'role']) }),
    );
  });

  router.post(CONSOLE_PATHS.portalEnd, signedIn, async (ctx) => {
    const form = formOf(ctx);
    await orShowAgain(
      ctx,
      async () => {
        const links = field(form, 'links') === 'true';
        const ended = await endPortalSessions(deps.accounts, actorFor(ctx), { owner: field(form, 'owner'), links });
        // back to the page of tenants the form was sent from
        const page = pageParam(ctx);
        redirectDone(ctx, `${CONSOLE_PATHS.tenants}${page > 1 ? `?page=${page}` : ''}`, 'portal-ended', {
          owner: ended.owner,
          sessions: String(ended.sessions),
          ...(links ? { links: String(ended.links) } : {}),
        });
      },
      (errors, status) => showTenants(ctx, { errors, status }),
    );
  });
}
