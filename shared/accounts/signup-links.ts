/**
 * Self-service sign-up confirmed by mail (`auth.signup` with `auth.signupConfirm`, the default):
 * `POST /register` makes nothing and answers the same whether or not the email has an account;
 * the mailbox learns which. An email without an account is mailed a single-use link, valid
 * `auth.resetTtl` as a reset link is, whose page asks for the password and makes the account (a
 * `member` of a tenant of its own, as sign-up without confirmation does) and signs it in. An
 * email with an account is mailed a notice naming the sign-in and forgotten-password pages, and
 * nothing changes; a disabled user's is mailed nothing (it could do neither). The password and
 * the account's name are chosen on the link's page, by whoever holds the mailbox: anyone may ask
 * for a sign-up with any email, so what they asked (the name is kept only to prefill the page)
 * decides nothing of the account. Nothing secret waits with a pending request; only the digest of
 * a link's token is stored (`app_signup_requests`).
 */
import { unprocessable } from '../errors/app-error.ts';
import { transaction } from '../db/transaction.ts';
import { ulid } from '../webhooks/ids.ts';
import { assertSignUpOpen } from './account-flows.ts';
import { clockOf, type AccountDeps } from './deps.ts';
import { lifetimeText, mailedLinkBase } from './password-links.ts';
import { looksLikeSecret, newSecret, secretDigest } from './secrets.ts';
import {
  deleteExpiredSignupRequests,
  insertSignupRequestWithin,
  signupLinkRow,
  useSignupLinkRow,
} from './signup-store.ts';
import { checkEmail, checkName, emailKey } from './user-fields.ts';
import { insertPreparedUser, prepareNewUser, selectUserNamed, type User } from './users.ts';

export const SIGNUP_LINK_PREFIX = 'app_sup_';

/** The page a confirmation link opens (a form posting to `POST /confirm-signup`). */
export const signupLinkUrl = (base: string, token: string): string =>
  `${base}/confirm-signup?token=${encodeURIComponent(token)}`;

/**
 * Most sign-up mails (links and notices alike) one email is sent within `auth.resetTtl`: anyone
 * may sign up with any email, from as many addresses as they have, and the authentication limiter
 * counts per address; this bounds what reaches one mailbox, whoever asks.
 */
export const SIGNUP_MAILS_PER_TTL = 3;

/** A sign-up as asked, checked without the database: what `POST /register` may refuse at once. */
export interface SignUpAsked {
  email: string;
  name: string | null;
}

/**
 * Checks a sign-up before anything is looked up: 403 `APP_SIGNUP_CLOSED` when sign-up is off, 422
 * `APP_USER_FIELD_INVALID` for an email or name no account could have. None of these depends on
 * which accounts exist, so refusing them at once tells nothing.
 */
export function checkSignUp(deps: Pick<AccountDeps, 'config'>, input: { email: unknown; name?: unknown }): SignUpAsked {
  assertSignUpOpen(deps.config);
  return { email: checkEmail(input.email), name: checkName(input.name) };
}

/**
 * What `requestSignUp` did (`mailed`: a confirmation link made and handed to the mailer; `taken`:
 * the notice handed to the mailer; `disabled`: nothing, the email is a disabled user's;
 * `too-many`: the email was sent `SIGNUP_MAILS_PER_TTL` mails within `auth.resetTtl` already).
 * The caller's answer is the same whatever it was.
 */
export type SignUpRequest = 'mailed' | 'taken' | 'disabled' | 'no-public-url' | 'too-many';

/**
 * The mail of a sign-up: a confirmation link for an email without an account, else the notice
 * that it has one. `POST /register` answers before calling it (the lookup, the row and the mail
 * come after), so neither the answer nor its time tells which. In production without `publicUrl`
 * nothing is mailed (password-links.ts `mailedLinkBase`: a link on the request's `Host` could
 * point anywhere, the notice's too); the refusal is logged with the remedy.
 */
export async function requestSignUp(deps: AccountDeps, asked: SignUpAsked, origin: string): Promise<SignUpRequest> {
  const base = mailedLinkBase(deps.config, origin);
  if (base === null) {
    deps.log.error(
      "a sign-up was asked but no mail was sent: publicUrl is not set, and a link built from the request's Host header could point anywhere; set APP_PUBLIC_URL",
    );
    return 'no-public-url';
  }
  const row = await selectUserNamed(deps.sql, asked.email);
  if (row && row.disabled_at !== null) {
    deps.log.info({ userId: row.id }, "a sign-up was asked with a disabled user's email: nothing was sent");
    return 'disabled';
  }
  const token = row ? null : newSecret(SIGNUP_LINK_PREFIX);
  const at = clockOf(deps);
  const ttl = deps.config.auth.resetTtl;
  const recorded = await transaction(deps.sql, async (tx) => {
    const input = {
      email: asked.email,
      emailKey: emailKey(asked.email),
      name: asked.name,
      digest: token === null ? null : secretDigest(token),
      at,
      expiresAt: new Date(at.getTime() + ttl),
    };
    const made = await insertSignupRequestWithin(tx, input, {
      most: SIGNUP_MAILS_PER_TTL,
      since: new Date(at.getTime() - ttl),
    });
    await deleteExpiredSignupRequests(tx, new Date(at.getTime() - 86_400_000)); // keeps the table small
    return made;
  });
  if (!recorded) {
    deps.log.warn(
      { userId: row?.id, most: SIGNUP_MAILS_PER_TTL },
      'a sign-up was asked but no mail was sent: the email was sent as many sign-up mails as it may be within auth.resetTtl',
    );
    return 'too-many';
  }
  // a notice goes to the account's own spelling of the address: the one its owner gave
  const to = row?.email ?? asked.email;
  const mail = token === null ? takenMail(base, to) : linkMail(base, to, token, lifetimeText(ttl));
  deps.mailer
    ?.send({ to, ...mail })
    .catch((error: unknown) => deps.log.error({ err: error, userId: row?.id }, 'the sign-up mail could not be sent'));
  deps.log.info(
    { userId: row?.id },
    token === null ? 'sign-up asked for a taken email: notice made' : 'sign-up link made',
  );
  return token === null ? 'taken' : 'mailed';
}

const linkMail = (base: string, email: string, token: string, validFor: string) => ({
  subject: 'Confirm your sign-up',
  maskedHint:
    "(a link's token is masked in the log: set mail.url to send the mail, or make the account with `app users:create`; auth.signupConfirm: false signs up without a mail)",
  text: `Someone asked to create an account with ${email} on ${base}.\n\nTo create it, open this link within ${validFor} and choose your password and the name the account shows; it works once:\n\n${signupLinkUrl(base, token)}\n\nIf it was not you, ignore this mail: no account is made without the link.\n`,
});

const takenMail = (base: string, email: string) => ({
  subject: 'Someone tried to sign up with your email',
  text: `Someone tried to create an account with ${email} on ${base}, but this email has one already. Nothing was changed.\n\nIf it was you, sign in:\n\n${base}/login\n\nor, if you have forgotten your password, ask for a new one:\n\n${base}/forgot-password\n\nIf it was not you, ignore this mail.\n`,
});

/** AppError 422 `APP_SIGNUP_LINK_INVALID`: unknown, used or expired (which one is not said). */
const linkInvalid = () =>
  unprocessable('this sign-up link is not valid: it may have expired or been used already; sign up again', {
    code: 'APP_SIGNUP_LINK_INVALID',
  });

/** A confirmation link's pending sign-up: the email its account is for and the name asked with it (null: none). */
export interface PendingSignUp {
  email: string;
  requestedName: string | null;
}

/**
 * The pending sign-up of a confirmation link, while the link works (else null); nothing is spent.
 * The page the link opens shows the email in its username field, so that a password manager files
 * the new password under it, and the requested name prefilled in its name field, marked as what
 * was asked: only the link's holder sees either, and the holder was mailed the email.
 */
export async function pendingSignUp(deps: AccountDeps, token: unknown): Promise<PendingSignUp | null> {
  if (!looksLikeSecret(token, SIGNUP_LINK_PREFIX)) return null;
  const row = await signupLinkRow(deps.sql, secretDigest(token), clockOf(deps));
  return row ? { email: row.email, requestedName: row.name } : null;
}

/**
 * Makes the account of a confirmation link with the password and the name chosen by the link's
 * holder (`name` absent or empty: no name; the name asked at sign-up is not used, since whoever
 * asked need not hold the mailbox): checks both, spends the link and makes the user in one
 * transaction, so a link makes one account even when two requests race, and a refused password
 * or name leaves the link working. Throws 403 `APP_SIGNUP_CLOSED` (sign-up turned off since the
 * link was mailed), 422 `APP_SIGNUP_LINK_INVALID`, `APP_PASSWORD_WEAK` or `APP_USER_FIELD_INVALID`
 * (the name), and 409 `APP_USER_EMAIL_TAKEN` when the email got an account meanwhile (the link
 * stays unused; its holder has the mailbox, which may know).
 */
export async function completeSignUp(
  deps: AccountDeps,
  token: unknown,
  chosen: { password: unknown; name?: unknown },
): Promise<User> {
  assertSignUpOpen(deps.config);
  if (!looksLikeSecret(token, SIGNUP_LINK_PREFIX)) throw linkInvalid();
  const name = checkName(chosen.name);
  const at = clockOf(deps);
  const digest = secretDigest(token);
  const link = await signupLinkRow(deps.sql, digest, at);
  if (!link) throw linkInvalid();
  // the password checked against the link's email and hashed before the transaction, which then
  // holds its connection and the link's row only to spend the link and insert the user
  const id = `usr_${ulid()}`;
  const input = { email: link.email, name, password: chosen.password, role: 'member', owner: id };
  const prepared = await prepareNewUser(deps, input, { id });
  const user = await transaction(deps.sql, async (tx) => {
    const pending = await useSignupLinkRow(tx, digest, at);
    if (pending?.email !== link.email) throw linkInvalid();
    // a taken email undoes the spending
    return insertPreparedUser({ ...deps, sql: tx }, prepared);
  });
  deps.log.info({ userId: user.id }, 'sign-up confirmed through its link');
  return user;
}
