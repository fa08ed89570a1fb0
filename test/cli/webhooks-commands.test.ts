import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runAppInProcess, type CliRun as Run } from '../helpers/cli.ts';
import { createTestDatabase } from '../helpers/database.ts';

const db = await createTestDatabase();
const APP_SECRET = 'cli test application secret, long enough to matter';

/** Runs the CLI (in this process) against this file's database. `loopback` allows http and private receivers. */
function app(args: string[], options: { loopback?: boolean; env?: Record<string, string> } = {}): Promise<Run> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    APP_SECRET,
    ...(options.loopback ? { APP_WEBHOOKS__ALLOW_HTTP: 'true', APP_WEBHOOKS__ALLOW_PRIVATE: 'true' } : {}),
    ...options.env,
  };
  return runAppInProcess(args, env);
}

/** Runs with --json, expects success, and parses the one JSON document on stdout. */
async function json<T = Record<string, unknown>>(args: string[], options?: Parameters<typeof app>[1]): Promise<T> {
  const run = await app([...args, '--json'], options);
  assert.equal(run.code, 0, `app ${args.join(' ')} failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

/**
 * Expects the exit code (1 refused, 2 wrong usage, 3 not found; cli/failure.ts) with one `app:`
 * line on stderr matching `reason`, and nothing on stdout.
 */
async function refused(args: string[], reason: RegExp, options?: Parameters<typeof app>[1], exit = 1): Promise<void> {
  const run = await app(args, options);
  assert.equal(run.code, exit, `expected exit ${exit}: ${run.stdout}${run.stderr}`);
  assert.equal(run.stdout, '');
  const lines = run.stderr
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('app: '));
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0], reason);
}

describe('webhooks:install', () => {
  it('installs idempotently and says so', async () => {
    const result = await json<{ applied: string[]; table: string }>(['webhooks:install']);
    assert.deepEqual(result.applied, []);
    assert.equal(result.table, 'app_webhooks');
  });
});

describe('webhooks:add', () => {
  it("`webhooks:add https://example.com/hook --events 'order.*'` prints an id and a whsec_ secret", async () => {
    const run = await app(['webhooks:add', 'https://example.com/hook', '--events', 'order.*']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /\bep_[0-9A-Z]{26}\b/);
    assert.match(run.stdout, /\bwhsec_[A-Za-z0-9+/]{43}=/);
    assert.match(run.stdout, /webhooks:show ep_[0-9A-Z]{26} --reveal/);
  });

  it('the text form says (none) for an endpoint without description, as for the other unset fields', async () => {
    const run = await app(['webhooks:add', 'https://example.com/plain', '--events', 'order.*']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^description: \(none\)$/m);
    assert.match(run.stdout, /^owner: +\(none\)$/m);
  });

  it('with --json prints the endpoint with its secret, owner, description and headers', async () => {
    const endpoint = await json<{
      externalId: string;
      secret: string;
      owner: string;
      description: string;
      headers: Record<string, string>;
      events: string[];
    }>(
      [
        'webhooks:add',
        'http://127.0.0.1:9/in',
        '--events',
        'order.*, invoice.paid',
        '--owner',
        'acme',
        '--description',
        'orders',
        '--header',
        'X-Api-Key: k1',
        '--header',
        'X-Tenant:acme',
      ],
      { loopback: true },
    );
    assert.match(endpoint.externalId, /^ep_/);
    assert.match(endpoint.secret, /^whsec_/);
    assert.deepEqual(endpoint.events, ['order.*', 'invoice.paid']);
    assert.equal(endpoint.owner, 'acme');
    assert.equal(endpoint.description, 'orders');
    assert.deepEqual(endpoint.headers, { 'X-Api-Key': null, 'X-Tenant': null }, 'header values hidden unless --reveal');
    const revealed = await json<{ headers: Record<string, string> }>([
      'webhooks:show',
      endpoint.externalId,
      '--reveal',
    ]);
    assert.deepEqual(revealed.headers, { 'X-Api-Key': 'k1', 'X-Tenant': 'acme' });
  });

  it('refuses bad input with exit 1 and a one-line reason', async () => {
    // Independent of each other: run at once.
    await Promise.all([
      refused(['webhooks:add', 'http://example.com/hook', '--events', '*'], /scheme http is not allowed/),
      refused(['webhooks:add', 'https://user:pass@example.com/', '--events', '*'], /credentials/),
      refused(['webhooks:add', 'https://localhost/hook', '--events', '*'], /refused/),
      refused(['webhooks:add', 'https://127.1/hook', '--events', '*'], /127\.0\.0\.1 is refused/),
      refused(['webhooks:add', 'https://[::ffff:127.0.0.1]/hook', '--events', '*'], /refused/),
      refused(['webhooks:add', 'https://example.com/hook', '--events', 'a*'], /invalid webhook events/),
      refused(['webhooks:add', 'https://example.com/hook', '--events', 'a.b,,c'], /invalid webhook events/),
      refused(
        ['webhooks:add', 'https://example.com/hook', '--events', '*', '--header', 'connection: close'],
        /hop-by-hop/,
      ),
      refused(
        ['webhooks:add', 'https://example.com/hook', '--events', '*', '--header', 'Webhook-Signature: x'],
        /set by the service/,
      ),
      refused(['webhooks:add', 'https://example.com/hook', '--events', '*', '--header', 'no colon'], /Name: value/),
      refused(['webhooks:add', 'https://example.com/hook'], /Missing required argument: events/, undefined, 2),
    ]);
  });
});

describe('the other webhooks:* commands and events:emit', () => {
  it('show, rotate, reveal, send, emit, status, update, disable, enable, list and remove work together', async () => {
    const loop = { loopback: true };
    const endpoint = await json<{ externalId: string; secret: string }>(
      ['webhooks:add', 'http://127.0.0.1:9/flow', '--events', 'order.*', '--owner', 'flow'],
      loop,
    );

    const shown = await json<{ externalId: string; secrets: { createdAt: string; expiresAt: string | null }[] }>([
      'webhooks:show',
      endpoint.externalId,
    ]);
    assert.equal(shown.externalId, endpoint.externalId);
    assert.ok(!JSON.stringify(shown).includes(endpoint.secret), 'show without --reveal hides the secret');
    const text = await app(['webhooks:show', endpoint.externalId]);
    assert.ok(!text.stdout.includes(endpoint.secret));
    assert.match(text.stdout, /--reveal/);

    const rotated = await json<{ secret: string; graceEndsAt: string }>([
      'webhooks:rotate',
      endpoint.externalId,
      '--grace',
      '24h',
    ]);
    assert.match(rotated.secret, /^whsec_/);
    assert.ok(Math.abs(Date.parse(rotated.graceEndsAt) - Date.now() - 24 * 3600_000) < 120_000);
    const revealed = await json<{ secrets: { secret: string }[] }>(['webhooks:show', endpoint.externalId, '--reveal']);
    assert.deepEqual(
      revealed.secrets.map((s) => s.secret),
      [rotated.secret, endpoint.secret],
      'both sign during the grace',
    );
    const revealedText = await app(['webhooks:show', endpoint.externalId, '--reveal']);
    assert.ok(revealedText.stdout.includes(rotated.secret) && revealedText.stdout.includes(endpoint.secret));
    const again = await json<{ secret: string; graceEndsAt: null }>(['webhooks:rotate', endpoint.externalId]);
    assert.equal(again.graceEndsAt, null);
    assert.deepEqual(
      (await json<{ secrets: { secret: string }[] }>(['webhooks:show', endpoint.externalId, '--reveal'])).secrets.map(
        (s) => s.secret,
      ),
      [again.secret],
    );
    await refused(['webhooks:rotate', endpoint.externalId, '--grace', 'soon'], /--grace "soon" is not a duration/);

    const sent = await json<{ externalId: string; endpointId: string; type: string }>([
      'webhooks:send',
      endpoint.externalId,
      'test.ping',
      '--data',
      '{"hello":"world"}',
    ]);
    assert.equal(sent.endpointId, endpoint.externalId);
    assert.equal(sent.type, 'test.ping', 'sent although the endpoint subscribes only to order.*');
    const [job] = await db.sql<
      { payload: { body: string } }[]
    >`select payload from graphile_worker._private_jobs where key = ${sent.externalId}`;
    assert.deepEqual(JSON.parse(job.payload.body).data, { hello: 'world' });
    await refused(
      ['webhooks:send', endpoint.externalId, 'test.ping', '--data', '{"hello":'],
      /--data is not valid JSON/,
    );
    await refused(['webhooks:send', 'ep_UNKNOWN', 'test.ping'], /ep_UNKNOWN does not exist/, undefined, 3);

    const emitted = await json<{ externalId: string; deliveryIds: string[]; duplicate: boolean }>([
      'events:emit',
      'order.created',
      '--owner',
      'flow',
      '--data',
      '{"n":1}',
    ]);
    assert.match(emitted.externalId, /^evt_/);
    assert.equal(emitted.duplicate, false);
    assert.equal(emitted.deliveryIds.length, 1);
    const [queued] = await db.sql<
      { endpoint_id: string; event_id: string }[]
    >`select endpoint_id, event_id from app_webhook_deliveries where id = ${emitted.deliveryIds[0]}`;
    assert.deepEqual([queued.endpoint_id, queued.event_id], [endpoint.externalId, emitted.externalId]);
    const nobody = await json<{ externalId: string | null; deliveryIds: string[] }>([
      'events:emit',
      'order.created',
      '--owner',
      'someone-else',
    ]);
    assert.deepEqual([nobody.externalId, nobody.deliveryIds], [null, []]);
    const emittedText = await app(['events:emit', 'order.created', '--owner', 'flow']);
    assert.match(emittedText.stdout, /^queued 1 delivery of event evt_\S+:\nmsg_\S+ +order\.created -> /);
    const nobodyText = await app(['events:emit', 'order.created', '--owner', 'someone-else']);
    assert.match(
      nobodyText.stdout,
      /no enabled endpoint of owner someone-else subscribes to order\.created; nothing queued/,
    );
    await refused(['events:emit', 'order.*'], /invalid webhook event name/);
    await refused(['events:emit', 'order.created', '--data', 'nope'], /--data is not valid JSON/);

    const status = await json<{ externalId: string; deliveryCounts: { pending: number; total: number } }[]>([
      'webhooks:status',
      '--owner',
      'flow',
    ]);
    assert.deepEqual(
      status.map((s) => s.externalId),
      [endpoint.externalId],
    );
    assert.equal(status[0].deliveryCounts.pending, 3);
    const once = await app(['events:emit', 'order.created', '--owner', 'flow', '--event-id', 'flow-1']);
    assert.match(once.stdout, /^queued 1 delivery of event (evt_\S+):/);
    const original = /of event (evt_\S+):/.exec(once.stdout)?.[1];
    const repeated = await app(['events:emit', 'order.created', '--owner', 'flow', '--event-id', 'flow-1']);
    assert.match(
      repeated.stdout,
      new RegExp(`^event id flow-1 was emitted already; nothing queued\\. The original event ${original}, 1 delivery:`),
      'a duplicate says so',
    );
    assert.match((await app(['webhooks:status'])).stdout, /^ID +STATE +PENDING +RUNNING +DONE +DEAD/);

    const updated = await json<{ url: string; description: string; events: string[] }>(
      [
        'webhooks:update',
        endpoint.externalId,
        '--url',
        'http://127.0.0.1:10/new',
        '--events',
        'order.*,refund.*',
        '--description',
        'moved',
      ],
      loop,
    );
    assert.equal(updated.url, 'http://127.0.0.1:10/new');
    assert.deepEqual(updated.events, ['order.*', 'refund.*']);
    assert.equal(updated.description, 'moved');
    await refused(['webhooks:update', endpoint.externalId, '--url', 'https://10.0.0.1/x'], /refused/);
    await refused(['webhooks:update', endpoint.externalId], /nothing to update/, undefined, 2);
    await refused(['webhooks:update', 'ep_UNKNOWN', '--description', 'x'], /does not exist/, undefined, 3);

    const disabled = await json<{ enabled: boolean; disabledReason: string }>([
      'webhooks:disable',
      endpoint.externalId,
      '--reason',
      'maintenance',
    ]);
    assert.equal(disabled.enabled, false);
    assert.equal(disabled.disabledReason, 'maintenance');
    await refused(['webhooks:send', endpoint.externalId, 'test.ping'], /is disabled; enable it first/);
    assert.equal((await json<{ enabled: boolean }>(['webhooks:enable', endpoint.externalId])).enabled, true);

    const listed = await json<{ externalId: string }[]>(['webhooks:list', '--owner', 'flow']);
    assert.deepEqual(
      listed.map((e) => e.externalId),
      [endpoint.externalId],
    );
    const ownerless = await json<{ owner: string | null }[]>(['webhooks:list', '--without-owner']);
    assert.ok(ownerless.every((e) => e.owner === null));
    assert.ok(!(await app(['webhooks:list'])).stdout.includes('whsec_'));

    await refused(['webhooks:remove', endpoint.externalId], /pass --yes to confirm/, undefined, 2);
    assert.equal(
      (await json<{ externalId: string }>(['webhooks:show', endpoint.externalId])).externalId,
      endpoint.externalId,
      'not removed without --yes',
    );
    assert.deepEqual(await json(['webhooks:remove', endpoint.externalId, '--yes']), {
      externalId: endpoint.externalId,
      removed: true,
    });
    await refused(['webhooks:show', endpoint.externalId], /does not exist/, undefined, 3);
  });

  // what rotate and show call the value a receiver is given, by signing scheme: an hmac endpoint's
  // secret, an ed25519 endpoint's public key (its private key is never printed)
  const LABELS = [
    {
      signing: 'hmac-sha256',
      value: /^whsec_/,
      rotated: /^secret: whsec_\S+$/m,
      heading: /^secrets that sign \(\d\):$/m,
      other: /public key/i,
    },
    {
      signing: 'ed25519',
      value: /^whpk_/,
      rotated: /^public key: whpk_\S+$/m,
      heading: /^public keys that verify its signatures \(\d\):$/m,
      other: /secret|whsk_/i,
    },
  ] as const;
  for (const label of LABELS) {
    it(`rotate and show label what they print for an ${label.signing} endpoint as its ${label.signing === 'ed25519' ? 'public key (whpk_)' : 'secret (whsec_)'}`, async () => {
      const endpoint = await json<{ externalId: string; secret: string }>(
        ['webhooks:add', `http://127.0.0.1:9/${label.signing}`, '--events', '*', '--signing', label.signing],
        { loopback: true },
      );
      const id = endpoint.externalId;

      const rotatedText = await app(['webhooks:rotate', id, '--grace', '1h']);
      assert.equal(rotatedText.code, 0, rotatedText.stderr);
      assert.match(rotatedText.stdout, label.rotated);
      assert.doesNotMatch(rotatedText.stdout, label.other);
      const rotated = await json<{ externalId: string; signing: string; secret: string; graceEndsAt: string | null }>([
        'webhooks:rotate',
        id,
        '--grace',
        '1h',
      ]);
      assert.equal(rotated.signing, label.signing, '--json says which it is');
      assert.match(rotated.secret, label.value);

      const shownText = await app(['webhooks:show', id]);
      assert.match(shownText.stdout, label.heading);
      assert.doesNotMatch(shownText.stdout, label.other);
      const revealedText = await app(['webhooks:show', id, '--reveal']);
      assert.match(revealedText.stdout, label.heading);
      assert.doesNotMatch(revealedText.stdout, label.other);
      const revealed = await json<{ signing: string; secrets: { secret: string }[] }>([
        'webhooks:show',
        id,
        '--reveal',
      ]);
      assert.equal(revealed.signing, label.signing);
      assert.equal(revealed.secrets.length, 3, 'the first, and both rotations during their grace');
      for (const entry of revealed.secrets) {
        assert.match(entry.secret, label.value);
        assert.ok(revealedText.stdout.includes(entry.secret));
      }
    });
  }

  it('a changed APP_SECRET makes --reveal fail with the endpoint and the remedy; rotating recovers', async () => {
    const endpoint = await json<{ externalId: string }>(
      ['webhooks:add', 'http://127.0.0.1:9/changed', '--events', '*'],
      { loopback: true },
    );
    const other = { env: { APP_SECRET: 'a different application secret' } };
    await refused(
      ['webhooks:show', endpoint.externalId, '--reveal'],
      new RegExp(`${endpoint.externalId}.*app webhooks:rotate ${endpoint.externalId}`),
      other,
    );
    assert.equal(
      (await json<{ externalId: string }>(['webhooks:show', endpoint.externalId], other)).externalId,
      endpoint.externalId,
    );
    const { secret } = await json<{ secret: string }>(['webhooks:rotate', endpoint.externalId], other);
    assert.equal(
      (await json<{ secrets: { secret: string }[] }>(['webhooks:show', endpoint.externalId, '--reveal'], other))
        .secrets[0].secret,
      secret,
    );
  });

  it('warns on stderr that secrets are stored unencrypted without APP_SECRET in production, and says nothing outside it', async () => {
    const add = (env: Record<string, string>) =>
      app(['webhooks:add', 'http://127.0.0.1:9/plain', '--events', '*', '--json'], { loopback: true, env });
    const production = await add({ NODE_ENV: 'production', APP_SECRET: '', APP_ALLOW_UNENCRYPTED_SECRETS: 'true' });
    assert.equal(production.code, 0, production.stderr);
    assert.match(production.stderr, /webhook signing secrets are stored unencrypted: set APP_SECRET/);
    assert.ok(JSON.parse(production.stdout).secret.startsWith('whsec_'));
    const test = await add({ APP_SECRET: '' });
    assert.equal(test.code, 0, test.stderr);
    assert.doesNotMatch(test.stderr, /stored unencrypted/, 'no secret is ordinary outside production');
  });
});

describe('text from the database and the command line', () => {
  /** The id of a new endpoint to `url` for `a.b`, with `options` given to webhooks:add. */
  const added = async (url: string, ...options: string[]) =>
    (await json<{ externalId: string }>(['webhooks:add', url, '--events', 'a.b', ...options])).externalId;

  it('an escape sequence stored in a description is printed escaped, never written to the terminal raw', async () => {
    const externalId = await added('https://example.com/raw');
    // as a release before the C1 rule, or a store written by another program, may hold it
    await db.sql`update app_webhooks set description = ${'clear\u001b[2J then \u009b31mred'} where id = ${externalId}`;
    const run = await app(['webhooks:show', externalId]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^description: clear\\x1b\[2J then \\x9b31mred$/m);
    assert.doesNotMatch(run.stdout, /[\u001b\u009b]/);
    const listed = await json<{ description: string }>(['webhooks:show', externalId]);
    assert.equal(listed.description, 'clear\u001b[2J then \u009b31mred', '--json prints the record as it is');
  });

  it('refuses a description with a C1 control character from the command line', async () => {
    await refused(
      ['webhooks:add', 'https://example.com/c1', '--events', 'a.b', '--description', 'x\u009b2J'],
      /invalid webhook description/,
    );
  });

  it("`webhooks:update --description ''` removes the description, as --clear-description does; webhooks:add gives none", async () => {
    const externalId = await added('https://example.com/desc', '--description', 'orders');
    const updated = await json<{ description: string | null }>(['webhooks:update', externalId, '--description', '']);
    assert.equal(updated.description, null);
    const run = await app(['webhooks:show', externalId]);
    assert.match(run.stdout, /^description: \(none\)$/m);
    const empty = await json<{ description: string | null }>([
      'webhooks:show',
      await added('https://example.com/e', '--description', ''),
    ]);
    assert.equal(empty.description, null, "webhooks:add --description '' gives none too");
  });

  it('`webhooks:disable --reason \'\'` is a disable without a reason: the reason such a disable gets, not "()"', async () => {
    const externalId = await added('https://example.com/off');
    const run = await app(['webhooks:disable', externalId, '--reason', '']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^state: +disabled since \S+ \(disabled by an operator\)$/m);
    assert.doesNotMatch(run.stdout, /\(\)/);
    const shown = await json<{ disabledReason: string | null }>(['webhooks:show', externalId]);
    assert.equal(shown.disabledReason, 'disabled by an operator');
  });
});
