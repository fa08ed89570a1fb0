/**
 * Tokens (mint, list, revoke: the caller's own, or every one for admins, by the rules of
 * `/api/v1/tokens`), and for admins users (invite by a set-password link, disable, enable, a new
 * link) and tenants (with a portal link for each). The same core functions as the API and the
 * `tokens:*`, `users:*` and `portal:link` commands.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { createPasswordLink, linkBase, passwordLinkUrl } from '../../../shared/accounts/password-links.ts';
import { createPortalLink, PORTAL_ROLES, portalLinkUrl } from '../../../shared/accounts/portal-links.ts';
import { listTenants } from '../../../shared/accounts/tenants.ts';
import { createUser, listUsers, publicUser, setUserDisabled } from '../../../shared/accounts/users.ts';
import { parseDuration } from '../../../shared/config/units.ts';
import { ROLES } from '../../../shared/tokens/roles.ts';
import { listTokensFor, mintToken, revokeTokenFor } from '../../../shared/tokens/api-tokens.ts';
import type { UserPrincipal } from '../../../shared/tokens/principal.ts';
import { ownOrigin } from '../../http/own-origin.ts';
import type { PageError } from '../../pages/page-object.ts';
import { adminsOnly, doneNotice, field, formOf, isAdmin, orShowAgain, pageParam, principalOf, redirectDone, signedIn, type ConsoleDeps } from '../context.ts';
import { echo } from '../forms.ts';
import { CONSOLE_PATHS } from '../paths.ts';

const TOKEN_FIELDS = ['name', 'role', 'owner', 'expires'] as const;
const USER_FIELDS = ['email', 'name', 'role', 'owner'] as const;
const PER_PAGE = 50;

const post = (href: string) => ({ href, method: 'POST' });

export function accountRoutes(router: Router, deps: ConsoleDeps): void {
  const showTokens = async (ctx: Context, extra: { form?: Record<string, string>; minted?: unknown; errors?: PageError[]; status?: number } = {}) => {
    const window = { page: pageParam(ctx), perPage: PER_PAGE };
    const { records, total } = await listTokensFor(deps.tokens, principalOf(ctx), window);
    const canMint = isAdmin(ctx) || (principalOf(ctx) as UserPrincipal).kind === 'user';
    await ctx.render('console/tokens', {
      tokens: records, total, ...window, roles: ROLES, admin: isAdmin(ctx), canMint,
      form: extra.form ?? echo({}, TOKEN_FIELDS), minted: extra.minted ?? null,
    }, { errors: extra.errors, status: extra.status, notice: doneNotice(ctx), links: canMint ? { mint: post(CONSOLE_PATHS.tokens) } : {} });
  };

  router.get(CONSOLE_PATHS.tokens, signedIn, (ctx) => showTokens(ctx));

  router.post(CONSOLE_PATHS.tokens, signedIn, async (ctx) => {
    const form = formOf(ctx);
    await orShowAgain(ctx, async () => {
      const expires = field(form, 'expires');
      const ms = expires === undefined ? null : parseDuration(expires);
      const minted = await mintToken(deps.tokens, principalOf(ctx), {
        name: field(form, 'name') as string,
        ...(field(form, 'role') ? { role: field(form, 'role') as never } : {}),
        ...(field(form, 'owner') ? { owner: field(form, 'owner') } : {}),
        ...(expires === undefined ? {} : { expiresInMs: ms ?? (expires as never) }),
      });
      await showTokens(ctx, { minted, status: 201 });
    }, (errors, status) => showTokens(ctx, { form: echo(form, TOKEN_FIELDS), errors, status }));
  });

  router.post('/tokens/:id/revoke', signedIn, async (ctx) => {
    await revokeTokenFor(deps.tokens, principalOf(ctx), ctx.params.id);
    redirectDone(ctx, CONSOLE_PATHS.tokens, 'revoked');
  });

  const showUsers = async (ctx: Context, extra: { form?: Record<string, string>; link?: unknown; errors?: PageError[]; status?: number } = {}) => {
    const users = (await listUsers(deps.accounts, { includeDisabled: true })).map(publicUser);
    await ctx.render('console/users', { users, roles: ROLES, form: extra.form ?? { ...echo({}, USER_FIELDS), role: 'member' }, link: extra.link ?? null }, {
      errors: extra.errors, status: extra.status, notice: doneNotice(ctx), links: { invite: post(CONSOLE_PATHS.users) },
    });
  };

  /** A set-password link for `userId` (valid `auth.inviteTtl`), on `publicUrl` or this request's origin. */
  const setPasswordLink = async (ctx: Context, user: { id: string; email: string }) => {
    const { token, expiresAt } = await createPasswordLink(deps.accounts, user.id, 'invite');
    return { email: user.email, url: passwordLinkUrl(linkBase(deps.accounts, ownOrigin(ctx)), token), expiresAt };
  };

  /** A page for admins only (403 `APP_FORBIDDEN` for the others). */
  const adminPage = (path: string, what: string, show: (ctx: Context) => Promise<void>) =>
    router.get(path, signedIn, async (ctx) => {
      adminsOnly(ctx, what);
      await show(ctx);
    });

  adminPage(CONSOLE_PATHS.users, 'the users page', (ctx) => showUsers(ctx));

  router.post(CONSOLE_PATHS.users, signedIn, async (ctx) => {
    adminsOnly(ctx, 'inviting users');
    const form = formOf(ctx);
    await orShowAgain(ctx, async () => {
      const user = await createUser(deps.accounts, { email: field(form, 'email'), name: field(form, 'name'), role: field(form, 'role'), owner: field(form, 'owner') ?? null });
      await showUsers(ctx, { link: await setPasswordLink(ctx, user), status: 201 });
    }, (errors, status) => showUsers(ctx, { form: echo(form, USER_FIELDS), errors, status }));
  });

  for (const action of ['disable', 'enable'] as const) {
    router.post(`/users/:id/${action}`, signedIn, async (ctx) => {
      adminsOnly(ctx, 'disabling and enabling users');
      await setUserDisabled(deps.accounts, ctx.params.id, action === 'disable');
      redirectDone(ctx, CONSOLE_PATHS.users, action === 'disable' ? 'user-disabled' : 'user-enabled');
    });
  }

  router.post('/users/:id/reset-link', signedIn, async (ctx) => {
    adminsOnly(ctx, 'password links');
    const user = (await listUsers(deps.accounts, { includeDisabled: true })).find((candidate) => candidate.id === ctx.params.id);
    await showUsers(ctx, user ? { link: await setPasswordLink(ctx, user) } : { errors: [{ message: `user ${ctx.params.id} does not exist`, code: 'APP_USER_NOT_FOUND' }], status: 404 });
  });

  const showTenants = async (ctx: Context, extra: { link?: unknown; errors?: PageError[]; status?: number } = {}) =>
    ctx.render('console/tenants', { tenants: await listTenants(deps.webhooks), roles: PORTAL_ROLES, link: extra.link ?? null }, {
      errors: extra.errors, status: extra.status, links: { portalLink: post(CONSOLE_PATHS.portalLink) },
    });

  adminPage(CONSOLE_PATHS.tenants, 'the tenants page', (ctx) => showTenants(ctx));

  router.post(CONSOLE_PATHS.portalLink, signedIn, async (ctx) => {
    adminsOnly(ctx, 'portal links');
    const form = formOf(ctx);
    await orShowAgain(ctx, async () => {
      const principal = principalOf(ctx) as UserPrincipal;
      const link = await createPortalLink(deps.accounts, { owner: field(form, 'owner'), role: field(form, 'role'), createdBy: principal.kind === 'user' ? principal.userId : null });
      await showTenants(ctx, { link: { ...link, url: portalLinkUrl(linkBase(deps.accounts, ownOrigin(ctx)), link.token), token: undefined }, status: 201 });
    }, (errors, status) => showTenants(ctx, { errors, status }));
  });

}
