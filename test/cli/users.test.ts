import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runAppInProcess } from '../helpers/cli.ts';
import { Browser, startAccounts } from '../api/accounts/helpers.ts';
import { OPERATOR } from '../../shared/access/actor.ts';
import { createUser } from '../../shared/accounts/users.ts';
import { createPortalLink } from '../../shared/accounts/portal-links.ts';

const app = await startAccounts();

function cli(args: string[], stdin?: string, extraEnv: Record<string, string> = {}) {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'test',
    DATABASE_URL: app.db.url,
    APP_PUBLIC_URL: app.base,
    ...extraEnv,
  };
  return runAppInProcess(args, env, { stdin });
}

async function json(args: string[], stdin?: string) {
  const run = await cli([...args, '--json'], stdin);
  assert.equal(run.code, 0, `app ${args.join(' ')}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

describe('users:* and sessions:revoke', () => {
  it('an admin made with users:create --password-stdin signs in with a form and JSON, and mints a token over the API', async () => {
    const made = await json(
      ['users:create', '--email', 'Ops@Example.com', '--role', 'admin', '--name', 'Ops', '--password-stdin'],
      'a sturdy admin passphrase\n',
    );
    assert.match(made.id, /^usr_/);
    assert.equal(made.hasPassword, true);
    assert.equal(made.setPasswordUrl, undefined);
    const form = new Browser(app.base);
    const signedIn = await form.request('POST', '/login', {
      form: { email: 'ops@example.com', password: 'a sturdy admin passphrase' },
    });
    assert.equal(signedIn.status, 303, signedIn.text);
    const browser = new Browser(app.base);
    const csrf = await browser.signIn('ops@example.com', 'a sturdy admin passphrase');
    const token = await browser.request('POST', '/api/v1/tokens', {
      json: { name: 'from the console', role: 'member', owner: 'acme' },
      headers: { 'x-csrf-token': csrf },
    });
    assert.equal(token.status, 201, token.text);
  });

  it('without --password-stdin: a set-password link on publicUrl that works once', async () => {
    const made = await json(['users:create', '--email', 'ann@acme.test', '--role', 'member', '--owner', 'acme']);
    assert.equal(made.hasPassword, false);
    const link = new URL(made.setPasswordUrl);
    assert.equal(link.origin, app.base);
    const browser = new Browser(app.base);
    const page = await browser.request('GET', `${link.pathname}${link.search}`);
    const set = await browser.request('POST', '/reset-password', {
      json: { token: link.searchParams.get('token'), password: 'ann chooses a passphrase' },
      headers: { 'x-csrf-token': page.body.csrfToken },
    });
    assert.equal(set.status, 200, set.text);
    await new Browser(app.base).signIn('ann@acme.test', 'ann chooses a passphrase');
    const again = await browser.request('POST', '/reset-password', {
      json: { token: link.searchParams.get('token'), password: 'a second passphrase here' },
      headers: { 'x-csrf-token': page.body.csrfToken },
    });
    assert.equal(again.body.code, 'APP_PASSWORD_LINK_INVALID');
  });

  it('without publicUrl, and no npm start whose database it uses, the links lead to the configured port of the web process', async () => {
    const env = { PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATABASE_URL: app.db.url, PORT: '4567' };
    const made = await runAppInProcess(['users:create', '--email', 'port@acme.test', '--role', 'admin', '--json'], env);
    assert.equal(made.code, 0, made.stderr);
    assert.equal(new URL(JSON.parse(made.stdout).setPasswordUrl).origin, 'http://localhost:4567');
    const portal = await runAppInProcess(['portal:link', '--owner', 'acme', '--json'], env);
    assert.equal(portal.code, 0, portal.stderr);
    assert.equal(new URL(JSON.parse(portal.stdout).url).origin, 'http://localhost:4567');
    const published = await runAppInProcess(['portal:link', '--owner', 'acme', '--json'], {
      ...env,
      APP_PUBLIC_URL: 'https://hooks.example.com',
    });
    assert.equal(new URL(JSON.parse(published.stdout).url).origin, 'https://hooks.example.com', 'publicUrl wins');
  });

  it('users:list, users:disable, users:enable, users:reset-link and sessions:revoke, by id or email', async () => {
    const made = await json(
      ['users:create', '--email', 'bob@acme.test', '--role', 'viewer', '--owner', 'acme', '--password-stdin'],
      'bob has a passphrase',
    );
    const browser = new Browser(app.base);
    await browser.signIn('bob@acme.test', 'bob has a passphrase');
    const revoked = await json(['sessions:revoke', 'BOB@acme.test']);
    assert.equal(revoked.ended, 1);
    assert.equal((await browser.request('GET', '/api/v1/webhooks')).status, 401);
    const disabled = await json(['users:disable', made.id]);
    assert.ok(disabled.disabledAt);
    assert.ok(!(await json(['users:list'])).some((user: { id: string }) => user.id === made.id));
    assert.ok((await json(['users:list', '--all'])).some((user: { id: string }) => user.id === made.id));
    assert.equal(
      (
        await new Browser(app.base).request('POST', '/login', {
          json: { email: 'bob@acme.test', password: 'bob has a passphrase' },
        })
      ).status,
      401,
    );
    assert.equal((await json(['users:enable', 'bob@acme.test'])).disabledAt, null);
    await new Browser(app.base).signIn('bob@acme.test', 'bob has a passphrase');
    const link = await json(['users:reset-link', 'bob@acme.test']);
    assert.match(link.setPasswordUrl, /\/reset-password\?token=app_pwl_/);
    const text = await cli(['users:list']);
    assert.match(text.stdout, /bob@acme\.test\s+viewer\s+acme/);
    const unnamed = await cli(['users:create', '--email', 'nameless@acme.test', '--role', 'viewer', '--owner', 'acme']);
    assert.match(unnamed.stdout, /^name: {6}\(none\)$/m, 'an unset field reads (none), as in every other view');
  });

  it('refusals: a taken email, a weak password, a member without owner, an unknown user; one line and a non-zero exit', async () => {
    await json(
      ['users:create', '--email', 'taken@acme.test', '--role', 'admin', '--password-stdin'],
      'some long passphrase',
    );
    const cases: [string[], string | undefined, RegExp, number][] = [
      [['users:create', '--email', 'TAKEN@acme.test', '--role', 'admin'], undefined, /already exists/, 1],
      [
        ['users:create', '--email', 'weak@acme.test', '--role', 'admin', '--password-stdin'],
        'password1',
        /most common passwords|at least 10/,
        1,
      ],
      [['users:create', '--email', 'nobody@acme.test', '--role', 'member'], undefined, /give its owner/, 1],
      [['users:disable', 'ghost@acme.test'], undefined, /does not exist/, 3],
    ];
    for (const [args, stdin, reason, code] of cases) {
      const run = await cli(args, stdin);
      assert.equal(run.code, code, `${args.join(' ')}: ${run.stderr}`);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, reason);
    }
  });

  it('--password-stdin takes one line: empty, several lines or more than 4096 bytes is a usage error (exit 2) in one line, and no user is made', async () => {
    const cases: [string, RegExp][] = [
      ['', /^app: --password-stdin: standard input is empty; it takes one line\n$/],
      [
        'a sturdy passphrase\nand more\n',
        /^app: --password-stdin: standard input holds more than one line; it takes one\n$/,
      ],
      ['x'.repeat(5_000), /^app: --password-stdin: standard input holds more than 4096 bytes; it takes one line\n$/],
    ];
    for (const [stdin, reason] of cases) {
      const run = await cli(
        ['users:create', '--email', 'piped@acme.test', '--role', 'admin', '--password-stdin'],
        stdin,
      );
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, reason);
    }
    assert.doesNotMatch((await cli(['users:list'])).stdout, /piped@acme\.test/);
    const crlf = await json(
      ['users:create', '--email', 'crlf@acme.test', '--role', 'admin', '--password-stdin'],
      'a sturdy passphrase\r\n',
    );
    assert.equal(crlf.hasPassword, true);
  });

  it('users:list prints a page of --limit users, oldest first, and says which --page comes next; a page past the bound is refused', async () => {
    // 120 members of one tenant, made at the same instant: their order rests on the id alone
    const at = Date.now();
    const made: string[] = [];
    for (let n = 0; n < 120; n += 1)
      made.push(
        (
          await createUser({ ...app.accounts, now: () => at }, OPERATOR, {
            email: `paged${n}@bulk.test`,
            role: 'member',
            owner: 'bulk',
          })
        ).id,
      );
    made.sort();
    const first = await cli(['users:list', '--owner', 'bulk', '--limit', '50']);
    assert.equal(first.code, 0, first.stderr);
    const lines = first.stdout.trim().split('\n');
    assert.equal(lines.filter((line) => line.startsWith('usr_')).length, 50);
    assert.equal(lines.at(-1), 'page 1 of 3 (120 users): the next is --page 2');
    const idsOf = (text: string) => [...text.matchAll(/^(usr_\w+)/gm)].map(([, id]) => id);
    const second = await cli(['users:list', '--owner', 'bulk', '--limit', '50', '--page', '2']);
    assert.deepEqual([...idsOf(first.stdout), ...idsOf(second.stdout)], made.slice(0, 100));
    assert.match(second.stdout, /page 2 of 3 \(120 users\): the next is --page 3\n$/);
    // the last page says no more; with --json stdout is the page alone, the note on stderr
    const last = await cli(['users:list', '--owner', 'bulk', '--limit', '50', '--page', '3']);
    assert.deepEqual(idsOf(last.stdout), made.slice(100));
    assert.doesNotMatch(last.stdout, /--page/);
    const json = await cli(['users:list', '--owner', 'bulk', '--limit', '50', '--json']);
    assert.equal(JSON.parse(json.stdout).length, 50);
    assert.match(json.stderr, /page 1 of 3 \(120 users\): the next is --page 2/);
    // past the end: it says where the list ends
    const past = await cli(['users:list', '--owner', 'bulk', '--limit', '50', '--page', '4']);
    assert.equal(past.stdout, 'no users on page 4: the list ends at page 3 (120 users)\n');
    // the paging bound (api.maxPageOffset) refuses a deeper page: one line, exit 1
    const deep = await cli(['users:list', '--owner', 'bulk', '--limit', '50', '--page', '3'], undefined, {
      APP_API__MAX_PAGE_OFFSET: '60',
    });
    assert.equal(deep.code, 1, deep.stderr);
    assert.match(deep.stderr, /page 3 starts 100 records in, past the 60 this listing pages through/);
    const bad = await cli(['users:list', '--page', '0']);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--page 0: must be a whole number from 1/);
  });
});

describe('portal:end', () => {
  it("ends the tenant's portal sessions (and with --links its unopened links), says how many, and leaves other tenants'", async () => {
    const ended = [await app.portal('member', 'cli-end'), await app.portal('viewer', 'cli-end')];
    const other = await app.portal('member', 'cli-keep');
    await createPortalLink(app.accounts, OPERATOR, { owner: 'cli-end' });
    assert.deepEqual(await json(['portal:end', '--owner', 'cli-end', '--links']), {
      owner: 'cli-end',
      sessions: 2,
      links: 1,
    });
    for (const browser of ended) assert.equal((await browser.request('GET', '/api/v1/webhooks')).status, 401);
    assert.equal((await other.request('GET', '/api/v1/webhooks')).status, 200);
    const text = await cli(['portal:end', '--owner', 'cli-keep']);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout, '1 portal session of cli-keep ended\n');
    assert.equal((await other.request('GET', '/api/v1/webhooks')).status, 401);
  });

  it('an owner no endpoint could have exits 1 in one line; no --owner is a usage error (exit 2)', async () => {
    const invalid = await cli(['portal:end', '--owner', 'acme ']);
    assert.equal(invalid.code, 1, invalid.stderr);
    assert.equal(invalid.stdout, '');
    assert.match(invalid.stderr, /^app: .*owner/);
    const missing = await cli(['portal:end']);
    assert.equal(missing.code, 2, missing.stderr);
  });
});
