/**
 * The rules of the command line (cli/command-line.ts, docs/cli.md "Failures and exit codes"): a
 * wrong command line is a usage error, exit 2 with code APP_CLI_USAGE, in one `app:` line naming
 * the option (the command's usage before it), and changes nothing. Run through the real CLI
 * against a real database, so "changes nothing" is read back from it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blankArgument, commandLineRules } from '../../cli/command-line.ts';
import { runAppInProcess } from '../helpers/cli.ts';

/** The refusal of a number too large to be read exactly. */
const TOO_LARGE = 'must be a whole number from -9007199254740991 to 9007199254740991';
import { createTestDatabase } from '../helpers/database.ts';

const db = await createTestDatabase();

function app(args: string[], env: Record<string, string> = {}) {
  return runAppInProcess(args, {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    APP_SECRET: 'command line test application secret',
    APP_WEBHOOKS__ALLOW_HTTP: 'true',
    APP_WEBHOOKS__ALLOW_PRIVATE: 'true',
    ...env,
  });
}

/** Runs with --json, expects success, and parses the one JSON document on stdout. */
async function json<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const run = await app([...args, '--json']);
  assert.equal(run.code, 0, `app ${args.join(' ')}: ${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

/**
 * Expects a usage error: exit 2, nothing on stdout, exactly one `app:` line equal to `message`,
 * last, after the command's usage when yargs' reading of the line found it (`usage`); with --json,
 * one document {error: {code: APP_CLI_USAGE, message}}.
 */
async function usageError(args: string[], message: string, { usage = true } = {}): Promise<void> {
  const run = await app(args);
  assert.equal(run.code, 2, `app ${args.join(' ')}: expected exit 2: ${run.stdout}${run.stderr}`);
  assert.equal(run.stdout, '');
  const lines = run.stderr.trimEnd().split('\n');
  assert.deepEqual(
    lines.filter((line) => line.startsWith('app: ')),
    [`app: ${message}`],
  );
  assert.equal(lines.at(-1), `app: ${message}`, 'the reason is the last line');
  if (usage) assert.match(lines[0], new RegExp(`^app ${args[0]}\\b`), "the command's usage comes first");
  else assert.equal(lines.length, 1, run.stderr);

  const withJson = await app([...args, '--json']);
  assert.equal(withJson.code, 2);
  assert.deepEqual(JSON.parse(withJson.stdout), { error: { code: 'APP_CLI_USAGE', message } });
}

const endpoint = await json<{ externalId: string; events: string[] }>([
  'webhooks:add',
  'http://127.0.0.1:9/rules',
  '--events',
  'order.*',
  '--owner',
  'rules',
  '--description',
  'kept',
  '--header',
  'X-Kept: 1',
]);
const id = endpoint.externalId;

describe('a switch given a value, or an option of one value given twice, is a usage error (exit 2)', () => {
  // prune --dry-run=1 pruned for real, --json=yes printed text, a repeated --from-secret-env failed with a JavaScript error
  for (const [args, message] of [
    [['prune', '--dry-run=1'], '--dry-run=1: --dry-run takes no value (--dry-run turns it on, --no-dry-run off)'],
    [['webhooks:list', '--json=yes'], '--json=yes: --json takes no value (--json turns it on, --no-json off)'],
    [
      ['secrets:seal', '--from-secret-env', 'A', '--from-secret-env', 'B'],
      '--from-secret-env is given more than once: give it once',
    ],
    [['webhooks:list', '--owner', 'a', '--owner', 'b'], '--owner is given more than once: give it once'],
  ] as const) {
    it(`${args.join(' ')} is refused before the command runs`, async () => {
      await usageError([...args], message);
    });
  }
});

describe('--no-x of an option that takes a value is a usage error (exit 2) naming the option', () => {
  it('webhooks:update --no-events is refused and the events are kept', async () => {
    await usageError(['webhooks:update', id, '--no-events'], '--no-events: --events takes a value');
    const shown = await json<{ events: string[] }>(['webhooks:show', id]);
    assert.deepEqual(shown.events, ['order.*']);
  });

  it('webhooks:add --no-events is refused and no endpoint is made', async () => {
    const before = (await json<unknown[]>(['webhooks:list'])).length;
    await usageError(['webhooks:add', 'https://example.com/ne', '--no-events'], '--no-events: --events takes a value');
    assert.equal((await json<unknown[]>(['webhooks:list'])).length, before);
  });

  it('events:emit --no-data is refused and nothing is emitted', async () => {
    await usageError(['events:emit', 'order.created', '--no-data'], '--no-data: --data takes a value');
    assert.deepEqual(await json(['events:list', '--type', 'order.created']), []);
  });

  it('every other text option of the commands: --no-owner, --no-description, --no-url, --no-header, --no-expires, --no-endpoint', async () => {
    const cases: [string[], string][] = [
      [['webhooks:update', id, '--no-owner'], '--no-owner: --owner takes a value'],
      [['webhooks:update', id, '--no-description'], '--no-description: --description takes a value'],
      [['webhooks:update', id, '--no-url'], '--no-url: --url takes a value'],
      [['webhooks:update', id, '--no-header'], '--no-header: --header takes a value'],
      [['webhooks:list', '--no-owner'], '--no-owner: --owner takes a value'],
      [['tokens:create', '--name', 'ci', '--role', 'admin', '--no-expires'], '--no-expires: --expires takes a value'],
      [['jobs:list', '--no-endpoint'], '--no-endpoint: --endpoint takes a value'],
      [['events:list', '--no-limit'], '--no-limit: --limit takes a value'],
      [['event-types:add', 'x.y', '--no-example'], '--no-example: --example takes a value'],
    ];
    for (const [args, message] of cases) await usageError(args, message);
    const shown = await json<{ owner: string; description: string; url: string; headers: Record<string, unknown> }>([
      'webhooks:show',
      id,
    ]);
    assert.equal(shown.owner, 'rules');
    assert.equal(shown.description, 'kept');
    assert.equal(shown.url, 'http://127.0.0.1:9/rules');
    assert.deepEqual(Object.keys(shown.headers), ['X-Kept']);
  });

  it('the --no-x forms docs/cli.md lists still work: --no-filter, --no-fifo, --no-deprecated', async () => {
    assert.equal((await json<{ filter: unknown }>(['webhooks:update', id, '--no-filter'])).filter, null);
    assert.equal((await json<{ ordering: string }>(['webhooks:update', id, '--no-fifo'])).ordering, 'none');
    assert.ok(Array.isArray(await json(['event-types:list', '--no-deprecated'])));
  });
});

describe('an option that takes a value is given one (exit 2 otherwise)', () => {
  it('webhooks:list --owner, with nothing after it', async () => {
    await usageError(['webhooks:list', '--owner'], "--owner needs a value: only this owner's endpoints");
  });

  it('webhooks:rotate --grace, with nothing after it: nothing rotated', async () => {
    const before = await json<{ secrets: { secret: string }[] }>(['webhooks:show', id, '--reveal']);
    await usageError(
      ['webhooks:rotate', id, '--grace'],
      '--grace needs a value: how long the old secret (or key) keeps signing too, e.g. 24h; at most 365d (default: none)',
    );
    assert.deepEqual(await json(['webhooks:show', id, '--reveal']), before);
  });

  it('secrets:seal --from-secret-env says it needs the name of the environment variable', async () => {
    await usageError(
      ['secrets:seal', '--from-secret-env'],
      '--from-secret-env needs a value: environment variable holding the previous APP_SECRET',
    );
  });

  it('secrets:seal --from-secret-env= (given empty) says it needs the name of the environment variable', async () => {
    await usageError(
      ['secrets:seal', '--from-secret-env='],
      '--from-secret-env needs the name of the environment variable holding the previous APP_SECRET, e.g. --from-secret-env OLD_APP_SECRET',
      { usage: false },
    );
  });

  it('an option followed by another option has no value', async () => {
    await usageError(
      ['webhooks:update', id, '--description', '--clear-owner'],
      '--description needs a value: new description (an empty one removes it, as --clear-description does)',
    );
  });
});

describe("a number option's value is a whole number in decimal digits, a choice is one of the choices (exit 2, one line)", () => {
  const NOT_DECIMAL = 'must be a whole number in decimal digits';

  it('events:list --limit abc, listen --port abc, webhooks:add --rate-limit fast', async () => {
    await usageError(['events:list', '--limit', 'abc'], `--limit abc: ${NOT_DECIMAL}`);
    await usageError(['listen', '--port', 'abc'], `--port abc: ${NOT_DECIMAL}`);
    await usageError(
      ['webhooks:add', 'https://example.com/r', '--events', '*', '--rate-limit', 'fast'],
      `--rate-limit fast: ${NOT_DECIMAL}`,
    );
  });

  it('what yargs would read as another number is refused: 0x10 (16), 1e3 (1000), a padded 12, 12abc, 1_000, +5, 2.5', async () => {
    await usageError(['events:list', '--limit', '0x10'], `--limit 0x10: ${NOT_DECIMAL}`);
    await usageError(['jobs:list', '--limit=1e3'], `--limit 1e3: ${NOT_DECIMAL}`);
    await usageError(['jobs:dead', '--limit', ' 12'], `--limit ' 12': ${NOT_DECIMAL}`);
    await usageError(['events:list', '--limit', '12abc'], `--limit 12abc: ${NOT_DECIMAL}`);
    await usageError(['users:list', '--page', '1_000'], `--page 1_000: ${NOT_DECIMAL}`);
    await usageError(['listen', '--port', '+5'], `--port +5: ${NOT_DECIMAL}`);
    await usageError(['jobs:dead', '--limit', '2.5'], `--limit 2.5: ${NOT_DECIMAL}`);
    await usageError(['webhooks:update', id, '--rate-limit', '0x10'], `--rate-limit 0x10: ${NOT_DECIMAL}`);
    assert.equal((await json<{ rateLimit: number | null }>(['webhooks:show', id])).rateLimit, null);
  });

  it('a number past the safe integers is refused as written, never reported rounded (9007199254740992, 1e+25)', async () => {
    await usageError(['listen', '--port', '9007199254740993'], `--port 9007199254740993: ${TOO_LARGE}`);
    await usageError(['listen', '--port', `1${'0'.repeat(25)}`], `--port 1${'0'.repeat(25)}: ${TOO_LARGE}`);
    await usageError(
      ['webhooks:update', id, '--rate-limit', '-99999999999999999999'],
      `--rate-limit -99999999999999999999: ${TOO_LARGE}`,
    );
    assert.equal((await json<{ rateLimit: number | null }>(['webhooks:show', id])).rateLimit, null);
  });

  it("a blank number (an unset shell variable) is no number: listen --port '' is refused, never read as 0 (a free port)", async () => {
    await usageError(['events:list', '--limit', ' '], `--limit ' ': ${NOT_DECIMAL}`);
    await usageError(['webhooks:update', id, '--rate-limit='], `--rate-limit '': ${NOT_DECIMAL}`);
    assert.equal((await json<{ rateLimit: number | null }>(['webhooks:show', id])).rateLimit, null);
    await usageError(['listen', '--port', ''], `--port '': ${NOT_DECIMAL}`);
  });

  it('webhooks:add --signing rsa and tokens:create --role god: one line listing the choices', async () => {
    await usageError(
      ['webhooks:add', 'https://example.com/s', '--events', '*', '--signing', 'rsa'],
      '--signing rsa: must be one of hmac-sha256, ed25519',
    );
    await usageError(
      ['tokens:create', '--name', 'ci', '--role', 'god'],
      '--role god: must be one of admin, member, viewer',
    );
    await usageError(
      ['jobs:list', '--status', 'dead', 'lost'],
      '--status lost: must be one of pending, running, done, dead, all',
    );
  });
});

describe('values out of what the command accepts are usage errors (exit 2), in one line', () => {
  it('events:list --limit 0 and --limit 5000: from 1 to 1000', async () => {
    await usageError(['events:list', '--limit', '0'], '--limit 0: must be a whole number from 1 to 1000', {
      usage: false,
    });
    await usageError(['events:list', '--limit', '5000'], '--limit 5000: must be a whole number from 1 to 1000', {
      usage: false,
    });
    await usageError(['jobs:dead', '--limit', '-3'], '--limit -3: must be a whole number from 1 to 1000', {
      usage: false,
    });
  });

  it('listen --port 70000: a port is from 0 to 65535', async () => {
    await usageError(
      ['listen', '--port', '70000'],
      '--port 70000: must be a whole number from 0 to 65535 (0: a free one)',
      {
        usage: false,
      },
    );
  });

  it('webhooks:update with nothing to change', async () => {
    const run = await app(['webhooks:update', id]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr.trimEnd(), /^app: nothing to update: give --url, --events, .*$/);
    assert.equal(run.stderr.trimEnd().split('\n').length, 1);
  });

  it('webhooks:rotate --grace -1h (or --grace=-1h): a negative duration, refused; no help printed, nothing rotated', async () => {
    const before = await json<{ secrets: { secret: string }[] }>(['webhooks:show', id, '--reveal']);
    for (const args of [
      ['webhooks:rotate', id, '--grace', '-1h'],
      ['webhooks:rotate', id, '--grace=-1h'],
    ])
      await usageError(args, '--grace -1h: a negative duration is not accepted (no grace: leave --grace out)', {
        usage: false,
      });
    assert.deepEqual(await json(['webhooks:show', id, '--reveal']), before);
  });
});

describe('a confirmation not given is a usage error (exit 2)', () => {
  it('webhooks:remove answered n, or its input ended, on a terminal: exit 2, nothing removed', async () => {
    const doomed = await json<{ externalId: string }>(['webhooks:add', 'http://127.0.0.1:9/doomed', '--events', '*']);
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
    };
    for (const answer of ['n\n', '\n']) {
      const run = await runAppInProcess(['webhooks:remove', doomed.externalId], env, { stdin: answer, terminal: true });
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /\[y\/N\] app: nothing removed: not confirmed\n$/);
    }
    // the input ending at the question (Ctrl-D; stderr not a terminal) is no, where the run never ended
    const ended = await runAppInProcess(['webhooks:remove', doomed.externalId], env, { stdin: '', terminal: true });
    assert.equal(ended.code, 2, ended.stderr);
    assert.match(ended.stderr, /\[y\/N\] \napp: nothing removed: not confirmed\n$/);
    const withJson = await runAppInProcess(['webhooks:remove', doomed.externalId, '--json'], env, {
      stdin: 'no\n',
      terminal: true,
    });
    assert.equal(withJson.code, 2);
    assert.deepEqual(JSON.parse(withJson.stdout), {
      error: { code: 'APP_CLI_USAGE', message: 'nothing removed: not confirmed' },
    });
    assert.equal(
      (await json<{ externalId: string }>(['webhooks:show', doomed.externalId])).externalId,
      doomed.externalId,
    );

    const removed = await runAppInProcess(['webhooks:remove', doomed.externalId], env, {
      stdin: 'y\n',
      terminal: true,
    });
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, new RegExp(`^removed ${doomed.externalId}$`, 'm'));
  });
});

describe("refused input says why in the user's terms, in one line (exit 1)", () => {
  it('webhooks:rotate --grace 99999d names the longest grace as a duration, not in milliseconds', async () => {
    const run = await app(['webhooks:rotate', id, '--grace', '99999d']);
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stderr, 'app: --grace "99999d" is longer than the longest grace accepted, 365d (a year)\n');
    const longest = await json<{ graceEndsAt: string }>(['webhooks:rotate', id, '--grace', '365d']);
    assert.ok(Math.abs(Date.parse(longest.graceEndsAt) - Date.now() - 365 * 86_400_000) < 120_000);
  });
});

describe('a required argument given blank is a usage error (exit 2) naming it, where it was looked up as an empty id', () => {
  it('webhooks:show "", jobs:show " ", jobs show "", users:disable "", events:emit "": one line saying what to give', async () => {
    await usageError(['webhooks:show', ''], '<id> is empty: give the endpoint id (ep_…)', { usage: false });
    await usageError(['jobs:show', ' '], '<id> is empty: give the delivery id (msg_…, the webhook-id)', {
      usage: false,
    });
    await usageError(['jobs', 'show', ''], '<id> is empty: give the delivery id (msg_…, the webhook-id)', {
      usage: false,
    });
    await usageError(['users:disable', ''], '<user> is empty: give the user id (usr_…) or email', { usage: false });
    await usageError(['events:emit', ''], '<event> is empty: give the event name, e.g. order.created', {
      usage: false,
    });
  });

  it('names the first blank one of those required, and none when each holds a value', () => {
    const positionals: [string, { demandOption?: boolean; describe?: string }][] = [
      ['id', { demandOption: true, describe: 'Endpoint id (ep_…)' }],
      ['event', { demandOption: true }],
      ['note', { describe: 'Optional' }],
    ];
    assert.equal(blankArgument(positionals, { id: 'ep_1', event: '\t', note: '' }), '<event> is empty');
    assert.equal(blankArgument(positionals, { id: '', event: '' }), '<id> is empty: give the endpoint id (ep_…)');
    assert.equal(blankArgument(positionals, { id: 'ep_1', event: 'a', note: '' }), undefined);
  });
});

describe('the rules read the line as yargs does', () => {
  const rules = commandLineRules({
    options: [
      ['events', { type: 'string' }],
      ['grace', { type: 'string', describe: 'How long' }],
      ['limit', { type: 'number' }],
      ['header', { type: 'string', array: true }],
      ['fifo', { type: 'boolean' }],
      ['filter', { type: 'string' }],
      ['no-filter', { type: 'boolean' }],
      ['yes', { type: 'boolean', alias: 'y' }],
      ['rate-limit', { type: 'number' }],
    ],
  });

  it('options taking one value are the single-valued ones (nargs 1), not booleans or arrays', () => {
    assert.deepEqual(rules.singleValued, ['events', 'grace', 'limit', 'filter', 'rate-limit']);
  });

  it('accepts what is right', () => {
    for (const argv of [
      ['c', '--events', 'a', '--no-fifo', '--fifo', '--no-filter', '-y'],
      ['c', '--events=', '--grace=-1h', '--limit', '-5', '--header', 'A: b', 'C: d'],
      ['c', '--grace', '-1h'],
      ['c', '--unknown', '--no-unknown'],
      ['c', '--', '--no-events', '--grace'],
      ['c', '--events', '--help'],
      ['c', '--rateLimit', '5'],
      ['c', '--limit', '016', '--rate-limit=-0'],
      ['c', '--limit', '9007199254740991', '--rate-limit=-9007199254740991'],
      ['c', '--limit', '0009007199254740991'],
      ['c', '--fifo=true', '--no-filter=false', '--header', 'A: b', '--header', 'C: d'],
    ])
      assert.equal(rules.problem(argv), undefined, argv.join(' '));
  });

  it('refuses what is wrong, with the first problem', () => {
    const cases: [string[], string][] = [
      [['c', '--no-events'], '--no-events: --events takes a value'],
      [['c', '--no-events=x'], '--no-events: --events takes a value'],
      [['c', '--no-header'], '--no-header: --header takes a value'],
      [['c', '--events'], '--events needs a value'],
      [['c', '--events', '--fifo'], '--events needs a value'],
      [['c', '--header', '-y'], '--header needs a value'],
      [['c', '--grace'], '--grace needs a value: how long'],
      [['c', '--limit', 'x', '--no-events'], '--limit x: must be a whole number in decimal digits'],
      [['c', '--rateLimit=x'], '--rate-limit x: must be a whole number in decimal digits'],
      [['c', '--limit', ''], "--limit '': must be a whole number in decimal digits"],
      [['c', '--limit', '0x10'], '--limit 0x10: must be a whole number in decimal digits'],
      [['c', '--limit', '1e3'], '--limit 1e3: must be a whole number in decimal digits'],
      [['c', '--limit', '12 '], "--limit '12 ': must be a whole number in decimal digits"],
      [['c', '--limit', '9007199254740993'], `--limit 9007199254740993: ${TOO_LARGE}`],
      [['c', '--limit=-90071992547409930'], `--limit -90071992547409930: ${TOO_LARGE}`],
      [['c', '--fifo=yes'], '--fifo=yes: --fifo takes no value (--fifo turns it on, --no-fifo off)'],
      [['c', '-y', '--no-filter=1'], '--no-filter=1: --no-filter takes no value'],
      [['c', '--events', 'a', '--events', 'b'], '--events is given more than once: give it once'],
      [['c', '--limit=1', '--limit', '2'], '--limit is given more than once: give it once'],
    ];
    for (const [argv, message] of cases) assert.equal(rules.problem(argv), message, argv.join(' '));
  });
});
