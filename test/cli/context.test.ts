/**
 * Which database a CLI command uses (cli/context.ts): the configured one when there is one, else
 * the embedded PostgreSQL of a running `npm start`, and never that one in production, where the
 * production guard asks for DATABASE_URL.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, it } from 'node:test';
import { createCliContext } from '../../cli/context.ts';
import type { CliIo } from '../../cli/io.ts';

const local = { url: 'postgres://postgres@127.0.0.1:5999/app', pid: process.pid, allowLocal: false };
const secret = 'a production application secret, long enough';
const folder = mkdtempSync(join(tmpdir(), 'app-cli-context-'));
after(() => rmSync(folder, { recursive: true, force: true }));

async function contextWith(env: NodeJS.ProcessEnv) {
  const io: CliIo = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env };
  const { context, close } = await createCliContext({ json: false, io, localState: () => local });
  await close();
  return context;
}

describe('the database of a CLI command', () => {
  it('outside production, with none configured, is the one a running npm start recorded', async () => {
    const context = await contextWith({ NODE_ENV: 'development' });
    assert.equal(context.databaseConfig().databaseUrl, local.url);
  });

  it('in production, with no DATABASE_URL, is none: the production guard refuses, naming DATABASE_URL', async () => {
    const context = await contextWith({ NODE_ENV: 'production', APP_SECRET: secret });
    assert.equal(context.config.databaseUrl, null);
    assert.throws(() => context.databaseConfig(), /refusing to start in production without DATABASE_URL/);
  });

  it('is the databaseUrl of the APP_CONFIG file when the file names one', async () => {
    const file = join(folder, 'config.json');
    writeFileSync(file, JSON.stringify({ databaseUrl: 'postgres://app@db.example:5432/app' }));
    const context = await contextWith({ NODE_ENV: 'development', APP_CONFIG: file });
    assert.equal(context.databaseConfig().databaseUrl, 'postgres://app@db.example:5432/app');
  });
});
