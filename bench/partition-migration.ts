/**
 * `npm run bench:partition-migration [-- --rows 1000000 --runs 3]`: loads `rows` deliveries
 * (and as many attempts) under the schema before migration 023, then applies it while a writer
 * keeps inserting and updating deliveries, and reports the migration's time and the longest any
 * writer statement took (the target: under a second). A fresh database per run; medians of
 * `runs`.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { resolveConfig } from '../shared/config/index.ts';
import { connect } from '../shared/db/connect.ts';
import { createLogger } from '../shared/log/logger.ts';
import { BENCH_SECRET, median, note, numberArgs, wallClock } from './common.ts';
import { loadDeliveries, migrateBefore, migrateUnderLoad } from './migration-under-load.ts';

const args = numberArgs({ rows: 1_000_000, runs: 3 });
const given = process.env.DATABASE_URL;
const cluster = given ? undefined : await (await import('../deploy/local/embedded-postgres.ts')).startCluster({});
const adminUrl = given ?? cluster!.adminUrl;
const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
const results: { migrationMs: number; longestMs: number; statements: number }[] = [];
try {
  for (let run = 0; run < args.runs; run++) {
    const name = `bench_${randomBytes(4).toString('hex')}`;
    await admin.unsafe(`create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const { config } = resolveConfig({
      env: { NODE_ENV: 'production', DATABASE_URL: url.toString(), LOG_LEVEL: 'warn', APP_SECRET: BENCH_SECRET },
    });
    const log = createLogger(config, { name: 'bench' });
    const sql = connect(config, log, { max: 2, name: 'bench' });
    const writer = connect(config, log, { max: 1, name: 'bench-writer' });
    try {
      await migrateBefore({ config, sql, log });
      const started = wallClock();
      const endpoint = await loadDeliveries(sql, args.rows);
      note(
        `run ${run + 1}: loaded ${args.rows} deliveries and attempts in ${((wallClock() - started) / 1000).toFixed(1)} s`,
      );
      const result = await migrateUnderLoad({ config, sql, log }, writer, endpoint, args.rows);
      note(
        `run ${run + 1}: migration ${(result.migrationMs / 1000).toFixed(2)} s; ${result.statements} writer statements meanwhile, the longest ${result.longestMs.toFixed(1)} ms`,
      );
      results.push(result);
    } finally {
      await writer.end({ timeout: 5 });
      await sql.end({ timeout: 5 });
      await admin.unsafe(`drop database if exists ${name} with (force)`);
    }
  }
  process.stdout.write(
    [
      `bench:partition-migration (${args.rows} deliveries and ${args.rows} attempts; medians of ${args.runs} runs; ${given ? 'DATABASE_URL' : 'embedded PostgreSQL (durable defaults)'})`,
      `migration 023: ${(median(results.map((r) => r.migrationMs)) / 1000).toFixed(2)} s`,
      `longest writer statement meanwhile: ${median(results.map((r) => r.longestMs)).toFixed(1)} ms (each run: ${results.map((r) => r.longestMs.toFixed(1)).join(', ')} ms; ${median(results.map((r) => r.statements))} statements)`,
    ].join('\n') + '\n',
  );
} finally {
  await admin.end();
  await cluster?.stop();
}
