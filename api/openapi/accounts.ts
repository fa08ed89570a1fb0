/**
 * The account paths (api/accounts/routes.ts, signup-routes.ts): sign-in, sign-out, sign-up and its confirmation, password change,
 * forgotten and reset passwords. Each answers a form (`text/html`) to browsers and JSON to JSON
 * clients; unsafe ones need a CSRF token (`X-CSRF-Token` or `_csrf`) except `POST /login`.
 */
import { ACCOUNT_PATHS } from '../accounts/paths.ts';
import { JSON_TYPE, ref, type Json } from './components.ts';

const FORM_TYPE = 'application/x-www-form-urlencoded';
const string = { type: 'string' };
const csrfHeader: Json = {
  name: 'X-CSRF-Token',
  in: 'header',
  required: false,
  description:
    'The CSRF token (or the `_csrf` form field): from the sign-in answer, a page object or the `<meta name="csrf-token">` of a page.',
  schema: string,
};

const User: Json = {
  type: 'object',
  required: ['id', 'email', 'name', 'role', 'owner'],
  properties: {
    id: { type: 'string', pattern: '^usr_' },
    email: string,
    name: { type: ['string', 'null'] },
    role: { type: 'string', enum: ['admin', 'member', 'viewer'] },
    owner: { type: ['string', 'null'] },
    hasPassword: { type: 'boolean' },
    disabledAt: { type: ['string', 'null'], format: 'date-time' },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

const PageObject: Json = {
  type: 'object',
  description: 'A page for JSON clients: what the HTML form shows.',
  required: ['page', 'data', 'user', 'paths', 'csrfToken', '_links'],
  properties: {
    page: string,
    data: { type: 'object' },
    user: { oneOf: [User, { type: 'null' }] },
    paths: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
    csrfToken: string,
    errors: { type: 'array' },
    _links: ref('schemas', 'HalLinks'),
  },
};

const SignedIn: Json = {
  type: 'object',
  required: ['user', 'csrfToken'],
  properties: {
    user: User,
    csrfToken: { type: 'string', description: 'Send it as `X-CSRF-Token` with every unsafe request of this session.' },
  },
};

export const ACCOUNT_SCHEMAS: Json = { User, PageObject, SignedIn };

const body = (properties: Record<string, Json>, required: string[]): Json => {
  const schema = { type: 'object', required, properties };
  return { required: true, content: { [JSON_TYPE]: { schema }, [FORM_TYPE]: { schema } } };
};
const json = (description: string, schema?: Json): Json => ({
  description,
  ...(schema ? { content: { [JSON_TYPE]: { schema } } } : {}),
});
const page = (name: string): Json => ({
  operationId: `accounts.${name}.page`,
  tags: ['accounts'],
  summary: `The ${name} form (HTML) or its page object (JSON)`,
  security: [],
  responses: {
    200: {
      description: 'The form, or the page object.',
      content: { 'text/html': { schema: string }, [JSON_TYPE]: { schema: ref('schemas', 'PageObject') } },
    },
  },
});
/** The page a single-use link opens (`?token=`): a browser's first GET is redirected without it (link-landing.ts). */
const linkPage = (name: string, token: string): Json => ({
  ...page(name),
  parameters: [{ name: 'token', in: 'query', required: false, description: token, schema: string }],
  responses: {
    ...(page(name).responses as Json),
    303: { description: 'Browsers following a link: the same page without `?token=`.' },
  },
});
const post = (name: string, summary: string, requestBody: Json, responses: Json, csrf = true): Json => ({
  operationId: `accounts.${name}`,
  tags: ['accounts'],
  summary,
  security: [],
  ...(csrf ? { parameters: [csrfHeader] } : {}),
  requestBody,
  responses: {
    303: { description: 'Browsers (form posts): where to go next.' },
    403: ref('responses', 'Problem403'),
    429: ref('responses', 'Problem429'),
    ...responses,
  },
});

/** The account paths as OpenAPI path items. */
export function accountPaths(): Json {
  const password = { type: 'string', minLength: 1 };
  const signUp = post(
    'register',
    'Self-service sign-up (`auth.signup`), a member of a tenant of its own; with `auth.signupConfirm` (the default) the account is made by the mailed link (`/confirm-signup`), and `password` is not read here',
    body({ email: string, password, name: string }, ['email']),
    {
      201: json(
        'Without `auth.signupConfirm`: signed up and signed in; the session cookie is set.',
        ref('schemas', 'SignedIn'),
      ),
      202: json('With `auth.signupConfirm`: the mail follows. One body, byte for byte, for every email.', {
        type: 'object',
        required: ['status', 'message', 'validFor'],
        properties: { status: { const: 'mail-sent' }, message: string, validFor: string },
      }),
      409: ref('responses', 'Problem409'),
      422: ref('responses', 'Problem422'),
    },
  );
  return {
    [ACCOUNT_PATHS.login]: {
      get: page('login'),
      post: post(
        'login',
        'Sign in; the session cookie is set (checks `Origin`, no CSRF token)',
        body({ email: string, password, next: { type: 'string', description: 'Path a browser goes to after.' } }, [
          'email',
          'password',
        ]),
        {
          200: json('Signed in.', ref('schemas', 'SignedIn')),
          401: ref('responses', 'Problem401'),
        },
        false,
      ),
    },
    [ACCOUNT_PATHS.logout]: {
      post: post(
        'logout',
        'Sign out: the session ends',
        { required: false, content: { [JSON_TYPE]: { schema: { type: 'object' } } } },
        { 204: json('Signed out.') },
      ),
    },
    [ACCOUNT_PATHS.register]: { get: page('register'), post: signUp },
    [ACCOUNT_PATHS.signup]: {
      get: { ...page('register'), operationId: 'accounts.signup.page' },
      post: { ...signUp, operationId: 'accounts.signup' },
    },
    [ACCOUNT_PATHS.confirmSignup]: {
      get: linkPage(
        'confirm-signup',
        "A sign-up link's token. A browser (HTML) is answered 303 to `/confirm-signup` without it, the token kept in the link cookie (`app_link`, path `/confirm-signup`, 30 minutes) for the form; a JSON client gets the page object, `data.token` echoing it, `data.email` the email the account is made for and `data.requestedName` the name asked at sign-up (null when none was), both while the link works (null for an unknown, used or expired link); `data.name` is the name field's value, the requested name until a form is refused.",
      ),
      post: post(
        'confirm-signup',
        "Make the account of a sign-up link's token (the `token` field, else the link cookie a browser's GET of the link set) with the password and the name chosen here, and sign it in. The account gets the `name` posted here (absent or empty: no name), never the one asked at sign-up.",
        body({ token: string, password, name: string }, ['password']),
        {
          201: json('Signed up and signed in; the session cookie is set.', ref('schemas', 'SignedIn')),
          409: ref('responses', 'Problem409'),
          422: ref('responses', 'Problem422'),
        },
      ),
    },
    [ACCOUNT_PATHS.password]: {
      get: page('password'),
      post: post(
        'password',
        'Change the password (signed in); every other session ends, and this one is renewed: a new session cookie and a new CSRF token',
        body({ currentPassword: password, newPassword: password }, ['currentPassword', 'newPassword']),
        {
          200: json(
            'Changed. The session cookie is set anew (the one sent no longer works); send the new `csrfToken` from here on.',
            ref('schemas', 'SignedIn'),
          ),
          401: ref('responses', 'Problem401'),
          422: ref('responses', 'Problem422'),
        },
      ),
    },
    [ACCOUNT_PATHS.forgotPassword]: {
      get: page('forgot-password'),
      post: post(
        'forgot-password',
        'Mail a single-use reset link (the same answer whether or not the email exists)',
        body({ email: string }, ['email']),
        {
          202: json('Accepted.', ref('schemas', 'PageObject')),
        },
      ),
    },
    [ACCOUNT_PATHS.resetPassword]: {
      get: linkPage(
        'reset-password',
        "A reset or invite link's token. A browser (HTML) is answered 303 to `/reset-password` without it, the token kept in the link cookie (`app_link`, path `/reset-password`, 30 minutes) for the form; a JSON client gets the page object, `data.token` echoing it and `data.email` the account's email while the link works (null for an unknown, used or expired link).",
      ),
      post: post(
        'reset-password',
        "Set a new password with a reset or invite link's token (the `token` field, else the link cookie a browser's GET of the link set); every session of the user ends",
        body({ token: string, password }, ['password']),
        {
          200: json('Set.', { type: 'object', properties: { user: User } }),
          422: ref('responses', 'Problem422'),
        },
      ),
    },
  };
}
