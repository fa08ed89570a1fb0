import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { connect } from '../../../shared/db/connect.ts';
import { migrate } from '../../../shared/db/migrate.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { surviveDriverCrashAsProcessesDo } from '../../helpers/driver-crash.ts';
import { eventually } from '../../helpers/poll.ts';
import { startResettingProxy } from '../../helpers/postgres-fronts.ts';
import { spawnNode } from '../../helpers/processes.ts';

describe('migrate', () => {
  it('applies every migration once and installs the graphile-worker schema, then is a no-op', async () => {
    const db = await createTestDatabase({ empty: true });
    const first = await migrate(db);
    assert.ok(first.applied.includes('001_webhooks.sql'));
    const [worker] =
      await db.sql`select count(*)::int as n from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'graphile_worker' and p.proname = 'add_jobs'`;
    assert.equal(worker.n, 1);
    const again = await migrate(db);
    assert.deepEqual(again.applied, []);
    assert.equal(again.alreadyApplied, first.applied.length);
  });

  it('is safe when two processes run it at once (advisory lock): each file applied exactly once', async () => {
    const db = await createTestDatabase({ empty: true });
    const env = { DATABASE_URL: db.url, NODE_ENV: 'test' };
    const runs = [
      spawnNode('cli/main.ts', env, ['migrate', '--json']),
      spawnNode('cli/main.ts', env, ['migrate', '--json']),
    ];
    const exits = await Promise.all(runs.map((run) => run.exited));
    assert.deepEqual(
      exits.map((exit) => exit.code),
      [0, 0],
      runs.map((run) => run.output()).join('\n'),
    );
    const applied = runs.map((run) => (JSON.parse(run.output()) as { applied: string[] }).applied);
    assert.equal(
      applied.filter((list) => list.includes('001_webhooks.sql')).length,
      1,
      'one process applied it, the other found it done',
    );
    const rows = await db.sql`select name from app_migrations where name = '001_webhooks.sql'`;
    assert.equal(rows.length, 1);
  });

  it('rolls back a failing migration whole and names it', async () => {
    const db = await createTestDatabase({ empty: true });
    const dir = await mkdtemp(join(tmpdir(), 'migrations-'));
    await writeFile(join(dir, '001_ok.sql'), 'create table t_ok (id int);');
    await writeFile(join(dir, '002_bad.sql'), 'create table t_half (id int); select no_such_function();');
    await assert.rejects(migrate(db, { dir }), /migration 002_bad\.sql failed/);
    const tables =
      await db.sql`select table_name from information_schema.tables where table_name in ('t_ok', 't_half')`;
    assert.deepEqual(
      tables.map((row) => row.table_name),
      ['t_ok'],
    );
    const sql = connect(db.config, db.log, { max: 1 });
    const names = await sql`select name from app_migrations order by name`;
    assert.deepEqual(
      names.map((row) => row.name),
      ['001_ok.sql'],
    );
    await sql.end();
  });

  it('runs on a connection of its own: cut in the middle, it fails, and the caller’s pool answers every later query', async () => {
    const db = await createTestDatabase({ empty: true });
    surviveDriverCrashAsProcessesDo(db.log);
    const proxy = await startResettingProxy(db.url);
    const config = db.configWith({ databaseUrl: proxy.url });
    // the caller's pool: a web process's, of one connection so that one lost shows at once
    const pool = connect(config, db.log, { max: 1, name: 'caller' });
    try {
      await pool`select 1`;
      const dir = await mkdtemp(join(tmpdir(), 'migrations-'));
      await writeFile(join(dir, '001_slow.sql'), 'select pg_sleep(0.5) as migration_in_flight;');
      const sent = proxy.sent('migration_in_flight');
      const run = migrate({ config, log: db.log }, { dir });
      await sent;
      proxy.reset();
      await assert.rejects(run, /migration 001_slow\.sql failed/);
      for (let i = 0; i < 3; i += 1) {
        const [row] = await pool<{ i: number }[]>`select ${i}::int as i`;
        assert.equal(row?.i, i);
      }
      // the server ends the cut session's backend once its statement is over
      await eventually(
        async () => (await db.sql`select 1 from pg_stat_activity where application_name = 'app-migrate'`).length === 0,
        5_000,
        'the run’s connections ended with it',
      );
    } finally {
      await pool.end({ timeout: 1 });
      await proxy.close();
    }
  });
});
