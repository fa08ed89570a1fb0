/**
 * What `app` loads to answer. `--help`, `--version` and every command's `--help` read the command
 * table and the commands' options alone; the modules an action needs (the configuration's schema,
 * the database driver, the logger, ajv, graphile-worker, the web process) load only when it runs.
 * Loading them all is what made `app --help` slow: this checks the design without timing it
 * (`npm run bench:cli` times it).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from '../helpers/processes.ts';

/** Packages and project modules that only an action may load. */
const HEAVY_PACKAGES = [
  'postgres',
  'pg',
  'pino',
  'graphile-worker',
  'ajv',
  'undici',
  'koa',
  'graphql',
  'ioredis',
  'nodemailer',
  'prom-client',
  '@node-rs/argon2',
];
const HEAVY_MODULES = [
  'cli/context.ts',
  'shared/config/schema.ts',
  'shared/config/resolve.ts',
  'shared/db/connect.ts',
  'shared/log/logger.ts',
  'api/',
  'worker/',
];

const folder = mkdtempSync(join(tmpdir(), 'app-start-up-'));
after(() => rmSync(folder, { recursive: true, force: true }));
let runs = 0;

/**
 * Runs Node on `args` with test/helpers/module-loads.ts recording what it loads: the exit code,
 * the output and the loaded modules, as paths from the project's root (`cli/run.ts`) or from
 * node_modules (`node_modules/postgres/src/index.js`).
 */
async function loadsOf(args: string[], env: Record<string, string | undefined> = {}) {
  const file = join(folder, `loads-${++runs}`);
  const child = spawn(process.execPath, ['--import', './test/helpers/module-loads.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', MODULE_LOADS_FILE: file, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const loaded = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((url) => url.replace(/^file:\/\/.*\/node_modules\//, 'node_modules/').replace(`file://${ROOT}`, ''));
  return { code, output, loaded };
}

/** The heavy modules among `loaded`. */
function heavy(loaded: readonly string[]): string[] {
  return loaded.filter(
    (path) =>
      HEAVY_PACKAGES.some((name) => path.startsWith(`node_modules/${name}/`)) ||
      HEAVY_MODULES.some((module) => path.startsWith(module)),
  );
}

describe('what app loads', () => {
  it('app --help and app --version load no command module and none of what actions need', async () => {
    for (const flag of ['--help', '--version']) {
      const { code, output, loaded } = await loadsOf(['cli/bin.js', flag]);
      assert.equal(code, 0, output);
      assert.ok(loaded.includes('cli/run.ts'), flag);
      assert.deepEqual(heavy(loaded), [], flag);
      assert.deepEqual(
        loaded.filter((path) => path.startsWith('cli/commands/') && path !== 'cli/commands/index.ts'),
        [],
        flag,
      );
    }
  });

  it("every command's --help loads its options, none of what its action needs", async () => {
    // one process runs every command's help, as cli/bin.js would run each
    const script = `
      import { Writable, Readable } from 'node:stream';
      import { runApp } from './cli/app.ts';
      import { COMMANDS, commandName } from './cli/commands/index.ts';
      const sink = () => new Writable({ write: (_chunk, _encoding, done) => done() });
      for (const entry of COMMANDS) {
        const code = await runApp([commandName(entry), '--help'], { stdout: sink(), stderr: sink(), stdin: Readable.from([]), env: { NODE_ENV: 'test' } });
        if (code !== 0) throw new Error(entry.command + ' --help exited ' + code);
      }`;
    const { code, output, loaded } = await loadsOf(['--input-type=module', '--eval', script]);
    assert.equal(code, 0, output);
    assert.ok(loaded.includes('cli/commands/jobs.ts') && loaded.includes('cli/commands/webhooks-add.ts'));
    assert.deepEqual(heavy(loaded), []);
  });

  it('a command that runs loads what its action needs (the recorder sees them)', async () => {
    const { code, output, loaded } = await loadsOf(['cli/bin.js', 'webhooks:list'], {
      DATABASE_URL: 'postgres://127.0.0.1:1/app',
    });
    assert.equal(code, 4, output);
    const found = heavy(loaded);
    for (const expected of [
      'node_modules/postgres/',
      'node_modules/pino/',
      'cli/context.ts',
      'shared/config/schema.ts',
    ]) {
      assert.ok(
        found.some((path) => path.startsWith(expected)),
        `${expected} not among ${found.join(', ')}`,
      );
    }
  });
});
