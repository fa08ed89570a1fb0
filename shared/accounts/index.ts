/**
 * Accounts (docs/accounts-and-console.md "Accounts: users, sign-in, CSRF, tokens"): users (users.ts), their passwords
 * (passwords.ts), sign-in with the lockout (sign-in.ts, lockout.ts), sessions (sessions.ts), CSRF
 * tokens (csrf.ts), single-use password links (password-links.ts), sign-up confirmed by mail
 * (signup-links.ts), sign-up without confirmation and password change (account-flows.ts), mail
 * (mailer.ts).
 */
export type { AccountDeps } from './deps.ts';
export { createUser, findUser, listUsers, setUserDisabled, userNotFound, toUser, publicUser } from './users.ts';
export type { User, CreateUserInput } from './users.ts';
export { checkCredentials } from './sign-in.ts';
export { startSession, resolveSession, endSession, endUserSessions, pruneSessions } from './sessions.ts';
export type { PortalGrant, Session, StartedSession } from './sessions.ts';
export { createCsrfToken, createFormToken, formKeyOf, verifyCsrfToken } from './csrf.ts';
export {
  createPasswordLink,
  completePasswordLink,
  requestPasswordReset,
  linkBase,
  passwordLinkUrl,
  LINK_PREFIX,
} from './password-links.ts';
export { signUp, changePassword } from './account-flows.ts';
export {
  checkSignUp,
  completeSignUp,
  requestSignUp,
  signupLinkUrl,
  SIGNUP_LINK_PREFIX,
} from './signup-links.ts';
export { createMailer } from './mailer.ts';
export type { Mailer, Mail } from './mailer.ts';
export { ARGON2_PARAMETERS, checkNewPassword } from './passwords.ts';
export {
  createPortalLink,
  endPortalSessions,
  usePortalLink,
  portalLinkUrl,
  PORTAL_LINK_PREFIX,
  PORTAL_ROLES,
} from './portal-links.ts';
