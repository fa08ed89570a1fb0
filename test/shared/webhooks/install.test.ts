import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { testConfig } from '../../helpers/database.ts';
import { eventually } from '../../helpers/poll.ts';
import { connect } from '../../../shared/db/connect.ts';
import { ensureWebhookTables } from '../../../shared/webhooks/install.ts';
import { ensureWebhookTablesAtBoot } from '../../../shared/webhooks/boot.ts';
import { guardStore } from '../../../shared/webhooks/endpoint-stores/guard.ts';
import type { EndpointStore } from '../../../shared/webhooks/endpoint-stores/types.ts';
import { emit } from '../../../shared/webhooks/events/emit.ts';
import { appError, captureLogger } from './fixtures.ts';
import { listEndpoints, registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';

// These tests need databases without the migrations, so they make their own.
const ADMIN_URL = process.env.TEST_DATABASE_URL;
if (!ADMIN_URL) throw new Error('TEST_DATABASE_URL is not set: run the suite with `npm test`');
const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
const made: string[] = [];
after(async () => {
  for (const name of made) await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
});

async function blankDatabase(): Promise<string> {
  const name = `app_test_install_${randomBytes(5).toString('hex')}`;
  await admin.unsafe(`create database ${name}`);
  made.push(name);
  const url = new URL(ADMIN_URL as string);
  url.pathname = `/${name}`;
  return url.toString();
}

/** PostgreSQL's answer while it is starting: an ErrorResponse with SQLSTATE 57P03. */
function startingUpError(): Buffer {
  const fields = [
    ['S', 'FATAL'],
    ['V', 'FATAL'],
    ['C', '57P03'],
    ['M', 'the database system is starting up'],
  ].map(([key, value]) => Buffer.from(`${key}${value}\0`));
  const body = Buffer.concat([...fields, Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/**
 * A TCP proxy to the database that answers every connection as a database still starting up
 * (57P03) until `open()`, then passes connections through.
 */
async function gate(
  target: URL,
): Promise<{ url: (databaseUrl: string) => string; open(): void; close(): Promise<void> }> {
  let isOpen = false;
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = net.createServer((client) => {
    track(client);
    if (!isOpen) {
      client.once('data', () => client.end(startingUpError()));
      return;
    }
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: (databaseUrl) => {
      const url = new URL(databaseUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    open: () => void (isOpen = true),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('ensureWebhookTables (webhooks:install)', () => {
  it('creates the endpoint table, its (owner, disabled_at) index, the other webhook tables and the queue schema; a second run changes nothing', async () => {
    const config = testConfig(await blankDatabase());
    const { log } = captureLogger(config);
    const sql = connect(config, log, { max: 2 });
    try {
      const first = await ensureWebhookTables({ config, sql, log });
      assert.ok(first.applied.includes('001_webhooks.sql'));
      assert.equal(first.table, 'app_webhooks');
      const [row] = await sql<{ tables: string[]; index: string | null; queue: boolean }[]>`
        select array(select tablename::text from pg_tables where schemaname = 'public' and tablename like 'app\\_%' order by 1) as tables,
               (select indexdef from pg_indexes where indexname = 'app_webhooks_owner_disabled_at') as index,
               exists (select 1 from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'graphile_worker' and p.proname = 'add_jobs') as queue`;
      for (const table of ['app_webhooks', 'app_events', 'app_webhook_deliveries', 'app_webhook_attempts']) {
        assert.ok(row.tables.includes(table), `${table} exists`);
      }
      assert.match(row.index ?? '', /\(owner, disabled_at\)/);
      assert.equal(row.queue, true);
      const second = await ensureWebhookTables({ config, sql, log });
      assert.deepEqual(second.applied, []);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });

  it('with another webhooks.table: refuses with APP_WEBHOOK_TABLE_MISSING saying how to rename, and works on the renamed table', async () => {
    const url = await blankDatabase();
    const config = testConfig(url, { webhooks: { table: 'tenant_hooks' } });
    const { log } = captureLogger(config);
    const sql = connect(config, log, { max: 2 });
    try {
      await assert.rejects(
        ensureWebhookTables({ config, sql, log }),
        appError('APP_WEBHOOK_TABLE_MISSING', 500, (e) => {
          assert.match(e.message, /alter table app_webhooks rename to tenant_hooks/);
        }),
      );
      await sql`alter table app_webhooks rename to tenant_hooks`;
      await ensureWebhookTables({ config, sql, log });
      const endpoint = await registerEndpoint({ config, sql, log }, OPERATOR, {
        url: 'https://127.0.0.1/t',
        events: ['*'],
      });
      assert.deepEqual(
        (await listEndpoints({ config, sql }, OPERATOR)).records.map((e) => e.id),
        [endpoint.id],
      );
      assert.equal((await emit({ config, sql, log }, 'a.b', {})).length, 1);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });
});

describe('ensureWebhookTablesAtBoot', () => {
  it('does nothing when webhooks.install is false (production runs app migrate at release)', async () => {
    const config = testConfig('postgres://postgres@127.0.0.1:1/none', { webhooks: { install: false } });
    const { log } = captureLogger(config);
    const sql = connect(config, log, { max: 1 });
    assert.equal(await ensureWebhookTablesAtBoot({ config, sql, log }), false);
    await sql.end({ timeout: 1 });
  });

  it('keeps retrying while the database does not answer (still starting), without failing, and installs once it answers', async () => {
    const direct = await blankDatabase();
    const proxy = await gate(new URL(direct));
    const config = testConfig(proxy.url(direct));
    const capture = captureLogger(config);
    const sql = connect(config, capture.log, { max: 2 });
    try {
      let settled: boolean | undefined;
      const boot = ensureWebhookTablesAtBoot({ config, sql, log: capture.log }, { initialDelayMs: 20, maxDelayMs: 80 });
      void boot.then((value) => {
        settled = value;
      });
      const warnings = () =>
        capture.lines().filter((line) => line.level === 40 && /not reachable/.test(String(line.msg)));
      // the second retry's warning (a condition, not a guess at how long two take)
      await eventually(() => warnings().length >= 2, 20_000, 'a second "not reachable" warning');
      assert.equal(settled, undefined, 'still waiting for the database');
      proxy.open();
      assert.equal(await boot, true);
      const [{ found }] = await sql<{ found: boolean }[]>`select to_regclass('app_webhooks') is not null as found`;
      assert.equal(found, true);
      const said = () => capture.lines().filter((line) => /^webhook tables/.test(String(line.msg)));
      assert.equal(said().at(-1)?.msg, 'webhook tables installed');
      assert.ok(((said().at(-1)?.applied ?? []) as unknown[]).length > 0, 'naming what it applied');
      assert.equal(await ensureWebhookTablesAtBoot({ config, sql, log: capture.log }), true);
      assert.equal(said().at(-1)?.msg, 'webhook tables up to date', 'nothing applied: not said to be installed');
    } finally {
      await sql.end({ timeout: 5 });
      await proxy.close();
    }
  });

  it('says an endpoint store that does not answer is the store, not the database, with the reason', async () => {
    const config = testConfig(await blankDatabase());
    const capture = captureLogger(config);
    const sql = connect(config, capture.log, { max: 2 });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3307'), { code: 'ECONNREFUSED' });
    const endpoints = guardStore({
      name: 'registry',
      adapter: 'mysql',
      serviceDatabase: false,
      install: () => Promise.reject(refused),
      close: async () => {},
    } as unknown as EndpointStore);
    const controller = new AbortController();
    const boot = ensureWebhookTablesAtBoot(
      { config, sql, log: capture.log, endpoints },
      { initialDelayMs: 10_000, signal: controller.signal },
    );
    const warnings = () => capture.lines().filter((line) => line.level === 40);
    await eventually(() => warnings().length === 1, 20_000, "the first attempt's warning");
    controller.abort();
    assert.equal(await boot, false);
    const [warning] = warnings() as { msg: string; reason: string }[];
    assert.equal(warning.msg, 'endpoint store not reachable; its table will be installed once it answers');
    assert.equal(
      warning.reason,
      'endpoint store "registry" (mysql) did not answer: connect ECONNREFUSED 127.0.0.1:3307',
    );
    await sql.end({ timeout: 5 });
  });

  it('stops retrying when its signal aborts (shutdown)', async () => {
    const config = testConfig('postgres://postgres@127.0.0.1:1/none');
    const capture = captureLogger(config);
    const sql = connect(config, capture.log, { max: 1 });
    const controller = new AbortController();
    const boot = ensureWebhookTablesAtBoot(
      { config, sql, log: capture.log },
      { initialDelayMs: 10_000, signal: controller.signal },
    );
    const warnings = () =>
      capture.lines().filter((line) => line.level === 40 && /not reachable/.test(String(line.msg)));
    // the first attempt has failed: it is waiting 10 s before the next when the signal aborts
    await eventually(() => warnings().length === 1, 10_000, "the first attempt's warning");
    controller.abort();
    assert.equal(await boot, false);
    assert.equal(warnings().length, 1, 'the wait ended at the abort, without another attempt');
    await sql.end({ timeout: 1 });
  });
});
