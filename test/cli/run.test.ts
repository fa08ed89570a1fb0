import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import postgres from 'postgres';
import { COMMANDS, commandName } from '../../cli/commands/index.ts';
import { EXIT, failureOf, UsageError } from '../../cli/failure.ts';
import { ConfigError } from '../../shared/config/index.ts';
import { LOCAL_DATABASE_FILE } from '../../shared/db/local-database.ts';
import { notFound, unavailable, unprocessable } from '../../shared/errors/app-error.ts';
import { runAppInProcess } from '../helpers/cli.ts';
import { ROOT, spawnNode } from '../helpers/processes.ts';

/** Runs the real `app` process (cli/bin.js: exit codes, streams); no database, no inherited configuration. */
async function app(args: string[], env: Record<string, string | undefined> = {}) {
  const run = spawnNode(
    'cli/bin.js',
    { DATABASE_URL: undefined, APP_DATABASE_URL: undefined, NODE_ENV: 'test', ...env },
    args,
  );
  const { code } = await run.exited;
  return { code, output: run.output() };
}

describe('the command table', () => {
  it('names each command once, and every command module loads', async () => {
    const names = COMMANDS.map(commandName);
    assert.equal(new Set(names).size, names.length);
    for (const entry of COMMANDS) {
      const action = await entry.load();
      assert.equal(typeof action.builder, 'function', entry.command);
      assert.equal(typeof action.handler, 'function', entry.command);
    }
  });

  it('every command has an example, and its --help shows it', async () => {
    const runs: Array<{ code: number; output: string }> = [];
    for (const entry of COMMANDS) {
      const run = await runAppInProcess([commandName(entry), '--help'], { NODE_ENV: 'test' });
      runs.push({ code: run.code, output: `${run.stdout}${run.stderr}` });
    }
    COMMANDS.forEach((entry, index) => {
      assert.ok(entry.examples.length > 0, entry.command);
      assert.equal(runs[index].code, 0, runs[index].output);
      assert.match(runs[index].output, /Examples:/, entry.command);
      const examples = runs[index].output.slice(runs[index].output.indexOf('Examples:'));
      // yargs wraps long examples: their start is enough to know which one is shown
      assert.ok(
        examples.includes(entry.examples[0][0].replace('$0', 'app').slice(0, 24)),
        `${entry.command}: ${runs[index].output}`,
      );
    });
  });
});

describe('subcommands', () => {
  it('`jobs show --help` shows its example too', async () => {
    const run = await runAppInProcess(['jobs', 'show', '--help'], { NODE_ENV: 'test' });
    const output = `${run.stdout}${run.stderr}`;
    assert.equal(run.code, 0, output);
    assert.match(output, /Examples:\s+app jobs show msg_01H…/);
  });
});

describe('app', () => {
  it('--help lists every command with its description and the exit codes', async () => {
    const { code, output } = await app(['--help']);
    assert.equal(code, 0);
    for (const entry of COMMANDS) assert.ok(output.includes(`app ${entry.command}`), entry.command);
    assert.match(output, /Exit codes: 0 done, 1 failed, 2 wrong usage, 3 not found, 4 database unavailable/);
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string };
    const { code, output } = await app(['--version']);
    assert.equal(code, 0);
    assert.equal(output.trim(), version);
  });

  it('an unknown command is a usage error (exit 2) with a suggestion, its one line saying the command is unknown', async () => {
    const { code, output } = await app(['webhooks:lst']);
    assert.equal(code, EXIT.usage);
    assert.deepEqual(
      output.split('\n').filter((line) => line.startsWith('app: ')),
      ['app: unknown command webhooks:lst: did you mean webhooks:list?'],
    );
    const json = await runAppInProcess(['webhook:list', '--json'], { NODE_ENV: 'test' });
    assert.deepEqual(JSON.parse(json.stdout), {
      error: { code: 'APP_CLI_USAGE', message: 'unknown command webhook:list: did you mean webhooks:list?' },
    });
  });

  it('a word that is no command is called an unknown command, never an unknown argument; a family name lists its commands', async () => {
    const unknown = await runAppInProcess(['frobnicate'], { NODE_ENV: 'test' });
    assert.equal(unknown.code, EXIT.usage);
    assert.equal(unknown.stdout, '');
    assert.deepEqual(
      unknown.stderr.split('\n').filter((line) => line.startsWith('app: ')),
      ['app: unknown command frobnicate (app --help lists the commands)'],
    );
    const family = await runAppInProcess(['tokens'], { NODE_ENV: 'test' });
    assert.equal(family.code, EXIT.usage);
    assert.deepEqual(
      family.stderr.split('\n').filter((line) => line.startsWith('app: ')),
      ['app: unknown command tokens: the tokens commands are tokens:create, tokens:list, tokens:revoke'],
    );
    const json = await runAppInProcess(['frobnicate', '--json'], { NODE_ENV: 'test' });
    assert.equal(json.code, EXIT.usage);
    assert.deepEqual(JSON.parse(json.stdout), {
      error: { code: 'APP_CLI_USAGE', message: 'unknown command frobnicate (app --help lists the commands)' },
    });
  });

  it('an unreachable database exits 4 and names DATABASE_URL and the host tried, never the password', async () => {
    const { code, output } = await app(['webhooks:list'], { DATABASE_URL: 'postgres://app:hunter2@127.0.0.1:1/app' });
    assert.equal(code, EXIT.unavailable, output);
    assert.match(output, /^app: cannot reach the database at 127\.0\.0\.1:1 \(DATABASE_URL\): /m);
    assert.doesNotMatch(output, /hunter2/);
  });

  it('an unreachable database that DATABASE_URL did not name is named by where it came from: the APP_CONFIG file, the running npm start', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'app-cli-database-'));
    try {
      const file = join(folder, 'config.json');
      writeFileSync(file, JSON.stringify({ databaseUrl: 'postgres://app:hunter2@127.0.0.1:1/app' }));
      const configured = await app(['webhooks:list'], { APP_CONFIG: file });
      assert.equal(configured.code, EXIT.unavailable, configured.output);
      assert.match(
        configured.output,
        new RegExp(`^app: cannot reach the database at 127\\.0\\.0\\.1:1 \\(databaseUrl of ${file}\\): `, 'm'),
      );
      assert.doesNotMatch(configured.output, /hunter2/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }

    // the record of a running npm start whose database has gone (this process stands for it),
    // unless one runs here already: then its own database answers and there is nothing to see
    if (existsSync(LOCAL_DATABASE_FILE)) return;
    mkdirSync(dirname(LOCAL_DATABASE_FILE), { recursive: true });
    writeFileSync(
      LOCAL_DATABASE_FILE,
      JSON.stringify({ url: 'postgres://postgres@127.0.0.1:1/app', pid: process.pid, allowLocal: false }),
    );
    try {
      const local = await app(['webhooks:list'], { NODE_ENV: 'development' });
      assert.equal(local.code, EXIT.unavailable, local.output);
      assert.match(
        local.output,
        /^app: cannot reach the database at 127\.0\.0\.1:1 \(the embedded PostgreSQL of npm start\): /m,
      );
    } finally {
      rmSync(LOCAL_DATABASE_FILE, { force: true });
    }
  });

  it('a DATABASE_URL naming a database the server does not have exits 4 and says it is the configuration', async () => {
    const url = new URL(process.env.TEST_DATABASE_URL as string);
    url.pathname = '/app_test_no_such_database';
    const { code, output } = await app(['webhooks:list'], { DATABASE_URL: url.toString() });
    assert.equal(code, EXIT.unavailable, output);
    assert.match(
      output,
      /^app: cannot reach the database at [^ ]+ \(DATABASE_URL\): DATABASE_URL names a database that does not exist \(database "app_test_no_such_database" does not exist\)$/m,
    );
  });

  it('a database not migrated yet exits 4 with APP_DATABASE_NOT_MIGRATED, saying to run app migrate (prune, whose first statement calls a function of the migrations, included)', async () => {
    const admin = postgres(process.env.TEST_DATABASE_URL as string, { max: 1, onnotice: () => {} });
    const name = `app_test_blank_${process.pid}`;
    await admin.unsafe(`drop database if exists ${name}`);
    await admin.unsafe(`create database ${name}`);
    try {
      const url = new URL(process.env.TEST_DATABASE_URL as string);
      url.pathname = `/${name}`;
      const { code, output } = await app(['webhooks:list'], { DATABASE_URL: url.toString() });
      assert.equal(code, EXIT.unavailable, output);
      assert.equal(
        output,
        'app: the database is not migrated (relation "app_webhooks" does not exist): run `app migrate`\n',
      );
      const run = await runAppInProcess(['webhooks:list', '--json'], {
        NODE_ENV: 'test',
        DATABASE_URL: url.toString(),
      });
      assert.equal(JSON.parse(run.stdout).error.code, 'APP_DATABASE_NOT_MIGRATED');
      const prune = await app(['prune'], { DATABASE_URL: url.toString() });
      assert.equal(prune.code, EXIT.unavailable, prune.output);
      assert.match(
        prune.output,
        /^app: the database is not migrated \(function app_\w+\(.*\) does not exist\): run `app migrate`\n$/,
      );
      // the worker in the foreground says it in one line too, where it started and logged a failed
      // heartbeat with its stack (and, without --once, one at every beat)
      for (const args of [['jobs', '--once'], ['jobs']]) {
        const jobs = await app(args, { DATABASE_URL: url.toString() });
        assert.equal(jobs.code, EXIT.unavailable, jobs.output);
        assert.match(
          jobs.output,
          /^app: the database is not migrated: \d+ migrations pending, from 001_webhooks\.sql \(run app migrate\)\n$/,
        );
      }
    } finally {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });

  it('a DATABASE_URL that is not a URL is an invalid configuration: exit 1, APP_CONFIG_INVALID, one line naming DATABASE_URL', async () => {
    const { code, output } = await app(['webhooks:list'], { DATABASE_URL: 'notaurl' });
    assert.equal(code, EXIT.failure, output);
    assert.equal(
      output,
      'app: invalid configuration: - databaseUrl (DATABASE_URL) is not a URL the PostgreSQL driver can read, such as postgres://user:password@host:5432/database\n',
    );
    const run = await runAppInProcess(['webhooks:list', '--json'], { NODE_ENV: 'test', DATABASE_URL: 'notaurl' });
    assert.equal(run.code, EXIT.failure);
    assert.equal(JSON.parse(run.stdout).error.code, 'APP_CONFIG_INVALID');
  });

  it('with --json a failure is one JSON document {error: {code, message}} on stdout', async () => {
    const run = spawnNode('cli/bin.js', { DATABASE_URL: 'postgres://127.0.0.1:1/app', NODE_ENV: 'test' }, [
      'webhooks:list',
      '--json',
    ]);
    let stdout = '';
    run.child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const { code } = await run.exited;
    assert.equal(code, EXIT.unavailable);
    const document = JSON.parse(stdout) as { error: { code: string; message: string } };
    assert.equal(document.error.code, 'APP_DATABASE_UNAVAILABLE');
    assert.match(document.error.message, /127\.0\.0\.1:1/);
  });

  it('a failure is said as the success would have been printed: --json=true asks for the JSON document as --json does, a --no-json after it for text', async () => {
    const env = { DATABASE_URL: 'postgres://127.0.0.1:1/app', NODE_ENV: 'test' };
    for (const json of [['--json=true'], ['--no-json', '--json']]) {
      const run = await runAppInProcess(['webhooks:list', ...json], env);
      assert.equal(run.code, EXIT.unavailable, json.join(' '));
      assert.equal(run.stderr, '', json.join(' '));
      assert.equal((JSON.parse(run.stdout) as { error: { code: string } }).error.code, 'APP_DATABASE_UNAVAILABLE');
    }
    for (const text of [['--json', '--no-json'], ['--json=false'], ['--', '--json']]) {
      const run = await runAppInProcess(['webhooks:list', ...text], env);
      assert.notEqual(run.code, 0, text.join(' '));
      assert.equal(run.stdout, '', text.join(' '));
      assert.match(run.stderr, /^app: /m, text.join(' '));
    }
  });

  it('a reader that stops early (`app openapi | head`) ends the run quietly, without a stack trace', async () => {
    const run = spawnNode('cli/bin.js', { DATABASE_URL: undefined, APP_DATABASE_URL: undefined, NODE_ENV: 'test' }, [
      'openapi',
      '--no-event-types',
    ]);
    let stderr = '';
    run.child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // the description is far larger than a pipe's buffer: closing after its first bytes breaks the pipe
    run.child.stdout?.once('data', () => run.child.stdout?.destroy());
    const { code } = await run.exitedWithin(15_000);
    assert.equal(stderr, '');
    assert.equal(code, 0);
  });

  it('completion prints a shell completion script', async () => {
    const { code, output } = await app(['completion']);
    assert.equal(code, 0);
    assert.match(output, /--get-yargs-completions/);
  });
});

describe('exit codes', () => {
  const connectionRefused = Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:5433'), { code: 'ECONNREFUSED' });
  const CASES: [string, unknown, number, string][] = [
    ['a usage error', new UsageError('Unknown argument: x'), 2, 'APP_CLI_USAGE'],
    [
      'a usage error written on several lines',
      new UsageError('Invalid values:\n  Argument: signing, Given: "rsa"'),
      2,
      'APP_CLI_USAGE',
    ],
    ['an invalid configuration', new ConfigError(['port: not a number']), 1, 'APP_CONFIG_INVALID'],
    ['a record that does not exist', notFound('nope', { code: 'APP_WEBHOOK_NOT_FOUND' }), 3, 'APP_WEBHOOK_NOT_FOUND'],
    ['refused input', unprocessable('bad', { code: 'APP_WEBHOOK_URL_INVALID' }), 1, 'APP_WEBHOOK_URL_INVALID'],
    [
      'a store that is unavailable',
      unavailable('down', { code: 'APP_WEBHOOK_QUEUE_MISSING' }),
      4,
      'APP_WEBHOOK_QUEUE_MISSING',
    ],
    ['an unreachable database', connectionRefused, 4, 'APP_DATABASE_UNAVAILABLE'],
    ['anything else', new Error('boom\nstack'), 1, 'APP_CLI_FAILED'],
  ];
  for (const [what, error, exit, code] of CASES) {
    it(`${what}: exit ${exit}, code ${code}`, () => {
      const failure = failureOf(error, 'postgres://user:secret@db.internal:5433/app');
      assert.equal(failure.exit, exit);
      assert.equal(failure.code, code);
      assert.doesNotMatch(failure.message, /\n|secret/);
    });
  }

  it('a connection failure names the host of DATABASE_URL', () => {
    assert.match(
      failureOf(connectionRefused, 'postgres://u:p@db.internal:5433/app').message,
      /^cannot reach the database at db\.internal:5433 \(DATABASE_URL\)/,
    );
  });
});
