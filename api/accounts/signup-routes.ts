/**
 * The sign-up paths (docs/accounts-and-console.md "Sign-up"): `/register` = `/signup`, and with
 * `auth.signupConfirm` (the default) `/confirm-signup`, the page a mailed link opens.
 *
 * | Path | GET | POST |
 * |---|---|---|
 * | `/register`, `/signup` | form | `{email, name?}` → `202`, one body for every email (the mail follows); without `auth.signupConfirm` `{email, password, name?}` → `201 {user, csrfToken}` + cookie |
 * | `/confirm-signup` | form (`?token=` kept in the link cookie: link-landing.ts) | `{token?, password, name?}` → `201 {user, csrfToken}` + cookie; browsers 303 to `/` |
 *
 * The name asked at `/register` only prefills the confirmation form's name field: the account gets
 * the name posted to `/confirm-signup` by whoever holds the mailbox (signup-links.ts).
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { signUp } from '../../shared/accounts/account-flows.ts';
import type { AccountDeps } from '../../shared/accounts/deps.ts';
import { lifetimeText } from '../../shared/accounts/password-links.ts';
import { checkSignUp, completeSignUp, pendingSignUp, requestSignUp } from '../../shared/accounts/signup-links.ts';
import type { User } from '../../shared/accounts/users.ts';
import { ownOrigin } from '../http/own-origin.ts';
import { linkCookie, setLinkCookie } from './cookies.ts';
import { orShowForm } from './form-errors.ts';
import { keepLinkToken, linkPageData, postedLinkToken } from './link-landing.ts';
import { answerPage, wantsJson, type PageContext } from './page.ts';
import { ACCOUNT_PATHS } from './paths.ts';

type Body = Record<string, unknown>;

/** What a JSON client is answered for a sign-up to confirm: one document whatever the email, with no token in it. */
const accepted = (validFor: string) =>
  JSON.stringify({
    status: 'mail-sent',
    message: `Check your mail: a message about this sign-up is on its way to this address. To create the account, open the link it holds within ${validFor}.`,
    validFor,
  });

export function signUpRoutes(
  router: Router,
  deps: {
    accounts: AccountDeps;
    pages: PageContext;
    bodyOf: (ctx: Context) => Body;
    signIn: (ctx: Context, user: User, status: number) => Promise<void>;
  },
): void {
  const { accounts, pages, bodyOf, signIn } = deps;
  const { signup, signupConfirm: confirm, passwordMinLength: minLength, resetTtl } = accounts.config.auth;
  const validFor = lifetimeText(resetTtl);

  for (const path of [ACCOUNT_PATHS.register, ACCOUNT_PATHS.signup]) {
    router.get(path, (ctx) =>
      answerPage(ctx, pages, { page: 'register', data: { signup, confirm, minLength, email: null, name: null } }),
    );
    router.post(path, async (ctx) => {
      const body = bodyOf(ctx);
      const form = {
        page: 'register' as const,
        data: { signup, confirm, minLength, email: body.email ?? null, name: body.name ?? null },
      };
      await orShowForm(ctx, pages, form, async () => {
        if (!confirm)
          return signIn(
            ctx,
            await signUp(accounts, { email: body.email, password: body.password, name: body.name }),
            201,
          );
        const asked = checkSignUp(accounts, { email: body.email, name: body.name });
        // not awaited: whether the email has an account decides what is written and mailed, and an
        // answer that waited for it would tell by its time
        requestSignUp(accounts, asked, ownOrigin(ctx)).catch((error: unknown) =>
          accounts.log.error({ err: error }, 'a sign-up could not be mailed'),
        );
        ctx.set('Cache-Control', 'no-store');
        if (wantsJson(ctx)) {
          ctx.status = 202;
          ctx.type = 'application/json';
          ctx.body = accepted(validFor);
        } else
          await answerPage(ctx, pages, {
            page: 'register',
            status: 202,
            data: { signup, confirm, minLength, sent: true, validFor, email: null, name: null },
          });
      });
    });
  }

  /**
   * The confirmation page's data, as the set-password page's (link-landing.ts `linkPageData`), with
   * `requestedName`, the name asked at sign-up while the link works (else null), and `name`, the
   * name field's value: the requested name on the link's page, what was posted on a refused form.
   */
  const confirmData = async (given: unknown, kept: string | undefined, posted?: { name: unknown }) => {
    const pending = await pendingSignUp(accounts, postedLinkToken(given, kept));
    const requestedName = pending?.requestedName ?? null;
    return {
      ...(await linkPageData(given, kept, async () => pending?.email ?? null)),
      requestedName,
      name: posted === undefined ? requestedName : typeof posted.name === 'string' ? posted.name : null,
      minLength,
    };
  };

  router.get(ACCOUNT_PATHS.confirmSignup, async (ctx) => {
    if (keepLinkToken(ctx, pages.cookies, ACCOUNT_PATHS.confirmSignup)) return;
    return answerPage(ctx, pages, {
      page: 'confirm-signup',
      data: await confirmData(ctx.query.token, linkCookie(ctx, pages.cookies)),
    });
  });

  router.post(ACCOUNT_PATHS.confirmSignup, async (ctx) => {
    const body = bodyOf(ctx);
    const kept = linkCookie(ctx, pages.cookies);
    const form = { page: 'confirm-signup' as const, data: await confirmData(body.token, kept, { name: body.name }) };
    await orShowForm(ctx, pages, form, async () => {
      const chosen = { password: body.password, name: body.name };
      const user = await completeSignUp(accounts, postedLinkToken(body.token, kept), chosen);
      setLinkCookie(ctx, pages.cookies, ACCOUNT_PATHS.confirmSignup, null); // spent
      await signIn(ctx, user, 201);
    });
  });
}
