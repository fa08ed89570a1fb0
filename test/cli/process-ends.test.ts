/**
 * How the real `app` process (cli/bin.js) ends when what surrounds it in a script ends first
 * (cli/process-ends.ts): its stderr's reader gone, a signal while a statement waits on the
 * database.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXIT } from '../../cli/failure.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { eventually } from '../helpers/poll.ts';
import { spawnNode } from '../helpers/processes.ts';

const db = await createTestDatabase();
const ENV = { NODE_ENV: 'test', DATABASE_URL: db.url, APP_DATABASE_URL: undefined };

/** The CLI's statements in this file's database still running on the server. */
const activeCliStatements = () =>
  db.sql<{ wait: string | null }[]>`
    select wait_event_type as wait from pg_stat_activity
    where datname = ${db.name} and application_name = 'app-cli' and state = 'active'`;

describe('a closed stderr', () => {
  it("keeps the run's own exit code (a usage error exits 2), where Node ended it with exit 1", async () => {
    const run = spawnNode('cli/bin.js', ENV, ['webhooks:list', '--no-such-option']);
    // gone before the process has started: its usage and its one line meet a closed pipe
    run.child.stderr?.destroy();
    const { code, signal } = await run.exitedWithin(15_000);
    assert.equal(signal, null);
    assert.equal(code, EXIT.usage);
  });
});

describe('SIGTERM or SIGINT while a statement waits on the database', () => {
  for (const [signal, exit, json] of [
    ['SIGTERM', 143, false],
    ['SIGINT', 130, true],
  ] as const) {
    it(`${signal}${json ? ' with --json' : ''}: the statement is cancelled on the server, one report, then the process dies of ${signal} (a shell says ${exit})`, async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const lockTaken = new Promise<void>((resolve) => (locked = resolve));
      const holder = db.sql.begin(async (tx) => {
        await tx`lock table app_webhooks in access exclusive mode`;
        locked();
        await held;
      });
      try {
        await lockTaken;
        const run = spawnNode('cli/bin.js', ENV, ['webhooks:list', ...(json ? ['--json'] : [])]);
        let stdout = '';
        let stderr = '';
        run.child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk));
        run.child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk));
        await eventually(
          async () => (await activeCliStatements()).some((row) => row.wait === 'Lock'),
          15_000,
          'the CLI statement waiting on the lock',
        );
        run.child.kill(signal);
        const ended = await run.exitedWithin(5_000);
        assert.equal(ended.signal, signal, run.output());
        const message = `interrupted by ${signal}; its database statements in flight, if any, were cancelled`;
        if (json) {
          assert.deepEqual(JSON.parse(stdout), { error: { code: 'APP_CLI_INTERRUPTED', message } });
          assert.equal(stderr, '');
        } else {
          assert.equal(stderr, `app: ${message}\n`);
          assert.equal(stdout, '');
        }
        // the lock still held: a statement left behind would still be waiting on it
        await eventually(async () => (await activeCliStatements()).length === 0, 5_000, 'no CLI statement left');
      } finally {
        release();
        await holder;
      }
    });
  }
});
