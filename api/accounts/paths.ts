/**
 * The account paths (users and roles: docs/accounts-and-console.md "Accounts"). They are served before the application's
 * router, never covered by idempotency, and their POSTs are always counted by the authentication
 * limiter (`rateLimit.auth.paths`).
 */
export const ACCOUNT_PATHS = Object.freeze({
  login: '/login',
  logout: '/logout',
  register: '/register',
  signup: '/signup',
  /** The page a mailed sign-up link opens (`auth.signupConfirm`). */
  confirmSignup: '/confirm-signup',
  password: '/password',
  forgotPassword: '/forgot-password',
  resetPassword: '/reset-password',
});

/** Where a tenant portal link signs in (api/console/routes/portal.ts). */
export const PORTAL_PATH = '/portal';

/**
 * Unsafe account paths a browser reaches before signing in: their forms carry a CSRF token made
 * from the anonymous `app_csrf` secret. `POST /login` is not among them (it checks `Origin`
 * instead), nor `/password` (it needs a session, whose token it checks).
 */
export const ANONYMOUS_FORM_PATHS: ReadonlySet<string> = new Set([
  ACCOUNT_PATHS.register,
  ACCOUNT_PATHS.signup,
  ACCOUNT_PATHS.confirmSignup,
  ACCOUNT_PATHS.forgotPassword,
  ACCOUNT_PATHS.resetPassword,
  PORTAL_PATH,
]);

/** Where a browser goes after signing in: a path of this site (`/…`, never `//host` or a url), else `/`. */
export function safeNext(value: unknown, fallback = '/'): string {
  if (typeof value !== 'string' || value.length > 2000) return fallback;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\') || /[\x00-\x1f\x7f]/.test(value))
    return fallback;
  return value;
}
