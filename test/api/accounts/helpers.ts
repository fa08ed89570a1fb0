/**
 * What the account tests share: a web process with users made through the core, and a client
 * that keeps its cookies like a browser (one jar per client), speaking JSON or posting forms.
 */
import assert from 'node:assert/strict';
import type { WebDeps } from '../../../api/server.ts';
import type { AccountDeps } from '../../../shared/accounts/deps.ts';
import { createUser } from '../../../shared/accounts/users.ts';
import { createPortalLink } from '../../../shared/accounts/portal-links.ts';
import { serveWeb } from '../../helpers/web.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';

export const PASSWORD = 'correct horse battery staple';

export async function startAccounts(flags: Record<string, unknown> = {}, deps: Partial<WebDeps> = {}) {
  // the lockout and the authentication limiter have tests of their own; here they would count every test's sign-ins
  const served = await serveWeb({ auth: { lockout: false }, rateLimit: { auth: { max: 100_000 } }, ...flags }, deps);
  const accounts: AccountDeps = served.web.accounts;
  let made = 0;
  return {
    ...served,
    accounts,
    /** Makes a user with {@link PASSWORD}; a fresh email each call unless given. */
    user: (input: { role?: string; owner?: string | null; email?: string } = {}) => {
      made += 1;
      const role = input.role ?? 'admin';
      return createUser(accounts, OPERATOR, {
        email: input.email ?? `user${made}-${Math.random().toString(36).slice(2, 8)}@example.com`,
        role,
        owner: input.owner ?? (role === 'admin' ? null : 'acme'),
        password: PASSWORD,
      });
    },
    /** A browser signed in through a portal link of `owner` (acme unless given) with `role`. */
    portal: async (role: 'member' | 'viewer', owner = 'acme'): Promise<Browser> => {
      const { token } = await createPortalLink(accounts, OPERATOR, { owner, role });
      const browser = new Browser(served.base);
      const landing = await browser.request('GET', `/portal?token=${encodeURIComponent(token)}`);
      const used = await browser.request('POST', '/portal', { form: { _csrf: landing.body.csrfToken, token } });
      assert.equal(used.status, 303, used.text);
      return browser;
    },
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** A client keeping its cookies across requests, like one browser. */
export class Browser {
  readonly cookies = new Map<string, string>();
  readonly base: string;
  /** Headers a browser adds to its own site's requests (override per request). */
  readonly origin: string;
  constructor(base: string) {
    this.base = base;
    this.origin = base;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async request(
    method: string,
    path: string,
    options: { json?: unknown; form?: Record<string, string>; headers?: Record<string, string>; html?: boolean } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = {
      accept: options.html || options.form ? 'text/html' : 'application/json',
      ...(this.cookies.size ? { cookie: this.cookieHeader() } : {}),
      ...(method === 'GET' ? {} : { origin: this.origin }),
    };
    let body: string | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    }
    const response = await fetch(this.base + path, {
      method,
      headers: { ...headers, ...options.headers },
      body,
      redirect: 'manual',
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      const expired = attributes.some((attribute) => /^\s*expires=Thu, 01 Jan 1970/i.test(attribute)) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await response.text();
    let parsed: unknown = text;
    if (/json/.test(response.headers.get('content-type') ?? '')) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, text, body: parsed };
  }

  /** Signs in over JSON; answers the CSRF token. */
  async signIn(email: string, password = PASSWORD): Promise<string> {
    const answer = await this.request('POST', '/login', { json: { email, password } });
    if (answer.status !== 200) throw new Error(`sign-in failed: ${answer.status} ${answer.text}`);
    return answer.body.csrfToken as string;
  }
}
