/**
 * `npm run bench:cli [-- --runs 9]`: how long the `app` command takes to answer, run as the shell
 * runs it after the two lines of docs/cli.md "Calling it fast" (the project's `node_modules/.bin`
 * first on `PATH`, `alias app="$PWD/cli/bin.js"`): cli/bin.js executed itself, its `#!/usr/bin/env
 * node` line finding the project's Node 24 on that `PATH`, a new process each time. `--help`,
 * `--version`, a command's own help (`jobs --help`: the command whose action loads the most) and
 * a database command (`webhooks:list` on a migrated database with 20 endpoints). One warm-up run
 * first fills Node's compile cache, as the first use after an install does. Reports the median,
 * p10 and p90 of wall-clock time per command; an operator should have `--help` within 0.15 s and
 * a database command within 0.25 s.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BENCH_SECRET, benchDatabase, median, note, numberArgs, quantile } from './common.ts';

const { runs } = numberArgs({ runs: 9 });
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const db = await benchDatabase();
try {
  for (let i = 0; i < 20; i++) {
    await db.sql`insert into app_webhooks (id, url, events, owner) values (${`ep_bench${i}`}, ${`https://receiver.example/${i}`}, ${['order.*']}, ${i % 2 ? 'acme' : null})`;
  }
  const env = {
    // the project's Node 24 first, as docs/cli.md has the operator's shell
    PATH: `${ROOT}node_modules/.bin:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'production',
    DATABASE_URL: db.url,
    APP_SECRET: BENCH_SECRET,
    LOG_LEVEL: 'warn',
  };
  const time = (args: string[]) => {
    const started = performance.now();
    const result = spawnSync(`${ROOT}cli/bin.js`, args, { cwd: ROOT, env, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`app ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
    return (performance.now() - started) / 1000;
  };
  const nodeAlone = () => {
    const started = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    return (performance.now() - started) / 1000;
  };
  const rows: [string, number[]][] = [
    ['node -e 0 (Node alone)', []],
    ['app --help', []],
    ['app --version', []],
    ['app jobs --help', []],
    ['app webhooks:list', []],
  ];
  const commands: (string[] | null)[] = [null, ['--help'], ['--version'], ['jobs', '--help'], ['webhooks:list']];
  for (const args of commands) if (args) time(args); // warm-up: fills the compile cache
  for (let run = 0; run < runs; run++) {
    commands.forEach((args, index) => {
      rows[index][1].push(args ? time(args) : nodeAlone());
    });
  }
  note(`${runs} runs each, seconds (median, p10, p90):`);
  for (const [name, values] of rows) {
    process.stdout.write(
      `${name.padEnd(26)} median ${median(values).toFixed(3)}  p10 ${quantile(values, 0.1).toFixed(3)}  p90 ${quantile(values, 0.9).toFixed(3)}\n`,
    );
  }
} finally {
  await db.close();
}
