/**
 * The CLI with its endpoint table in MariaDB (`APP_STORES`, `APP_WEBHOOKS__STORE`), as an operator
 * runs it beside a deployment: the same environment for every command, each command a run of
 * its own (nothing kept in between but what the stores hold). The endpoint `webhooks:add` makes
 * is read back by `webhooks:list` and `webhooks:show` from MariaDB, its secret sealed there, and
 * PostgreSQL keeps only its gate row. MariaDB that cannot be reached fails the file.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cliEnvironment, runAppInProcess } from '../helpers/cli.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { createMariaDatabase } from '../helpers/mariadb.ts';
import { freePort } from '../helpers/ports.ts';

const db = await createTestDatabase();
const maria = await createMariaDatabase();

const ENV = cliEnvironment(db.url, {
  APP_SECRET: 'cli store test application secret, long enough',
  APP_STORES: JSON.stringify({ registry: { adapter: 'mysql', url: maria.url } }),
  APP_WEBHOOKS__STORE: 'registry',
});

/** `app <args> --json` with the file's environment; expects success and parses stdout. */
async function json<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const run = await runAppInProcess([...args, '--json'], ENV);
  assert.equal(run.code, 0, `app ${args.join(' ')} failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

describe('the CLI with a MariaDB endpoint store', () => {
  let id: string;

  it('webhooks:install makes the table in MariaDB and names the store', async () => {
    const installed = await json<{ table: string; store: string }>(['webhooks:install']);
    assert.equal(installed.store, 'registry');
    assert.equal(installed.table, 'app_webhooks');
    const tables = await maria.rows('SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?', [
      maria.name,
    ]);
    assert.deepEqual(
      tables.map((row) => row.name),
      ['app_webhooks'],
    );
    // the text says where the endpoint table is, not only that the service's tables needed nothing
    const text = await runAppInProcess(['webhooks:install'], ENV);
    assert.equal(text.code, 0);
    assert.equal(
      text.stdout,
      'webhook tables are installed (table app_webhooks in store registry (mysql)); nothing to do\n',
    );
  });

  it('webhooks:add writes the endpoint to MariaDB, its secret sealed; PostgreSQL gets its gate row only', async () => {
    const added = await json<{ externalId: string; secret: string }>([
      'webhooks:add',
      'http://127.0.0.1:9/hook',
      '--events',
      'order.*,invoice.paid',
      '--owner',
      'acme',
      '--header',
      'Authorization: Bearer receiver-credential',
    ]);
    assert.match(added.externalId, /^ep_/);
    assert.match(added.secret, /^whsec_/);
    id = added.externalId;

    const text = await maria.tableAsText('app_webhooks');
    assert.ok(text.includes(id));
    assert.equal(text.includes('whsec_'), false, 'no secret in plain text');
    assert.equal(text.includes(added.secret.slice('whsec_'.length)), false, 'not even its key');
    assert.equal(text.includes('receiver-credential'), false, 'no header value in plain text');
    const own = await db.sql<{ id: string }[]>`select id from app_webhooks`;
    assert.equal(own.length, 0, "nothing in the service database's endpoint table");
    const gates = await db.sql<{ owner: string }[]>`select owner from app_endpoint_gate where endpoint_id = ${id}`;
    assert.deepEqual(
      gates.map((gate) => gate.owner),
      ['acme'],
    );
  });

  it('webhooks:list and webhooks:show, run afresh with the same environment, read it back from MariaDB', async () => {
    type Listed = { externalId: string; url: string; events: string[]; owner: string; enabled: boolean };
    const listed = await json<Listed[]>(['webhooks:list']);
    assert.deepEqual(
      listed.map(({ externalId, url, events, owner, enabled }) => ({ externalId, url, events, owner, enabled })),
      [
        {
          externalId: id,
          url: 'http://127.0.0.1:9/hook',
          events: ['order.*', 'invoice.paid'],
          owner: 'acme',
          enabled: true,
        },
      ],
    );
    const byOwner = await json<Listed[]>(['webhooks:list', '--owner', 'acme']);
    assert.deepEqual(
      byOwner.map((endpoint) => endpoint.externalId),
      [id],
    );
    assert.deepEqual(await json(['webhooks:list', '--owner', 'globex']), []);
    const shown = await json<{ externalId: string; headers: Record<string, string | null> }>([
      'webhooks:show',
      id,
      '--reveal',
    ]);
    assert.equal(shown.externalId, id);
    assert.deepEqual(shown.headers, { Authorization: 'Bearer receiver-credential' });
  });

  it('webhooks:remove takes it out of MariaDB and its gate row out of PostgreSQL', async () => {
    await json(['webhooks:remove', id, '--yes']);
    assert.deepEqual(await maria.rows('SELECT id FROM app_webhooks'), []);
    const gates = await db.sql`select 1 from app_endpoint_gate where endpoint_id = ${id}`;
    assert.equal(gates.length, 0);
    assert.deepEqual(await json(['webhooks:list']), []);
  });

  it('a store that cannot be reached fails the command in one line naming the store and why: exit 4, APP_STORE_UNAVAILABLE', async () => {
    const unreachable = {
      ...ENV,
      APP_STORES: JSON.stringify({
        registry: { adapter: 'mysql', url: `mysql://root@127.0.0.1:${await freePort()}/app` },
      }),
    };
    const run = await runAppInProcess(['webhooks:list'], unreachable);
    assert.equal(run.code, 4, run.stderr);
    // no log line with a stack beside it, and not the database's failure: the store's
    assert.match(
      run.stderr,
      /^app: endpoint store "registry" \(mysql\) did not answer: connect ECONNREFUSED 127\.0\.0\.1:\d+\n$/,
    );
    const json = await runAppInProcess(['webhooks:list', '--json'], unreachable);
    assert.equal(json.code, 4);
    assert.equal((JSON.parse(json.stdout) as { error: { code: string } }).error.code, 'APP_STORE_UNAVAILABLE');
  });

  it("a store that refuses the database named fails the command with the driver's reason", async () => {
    const run = await runAppInProcess(['webhooks:list'], {
      ...ENV,
      APP_STORES: JSON.stringify({ registry: { adapter: 'mysql', url: `${maria.url}_missing` } }),
    });
    assert.equal(run.code, 4, run.stderr);
    assert.match(
      run.stderr,
      /^app: endpoint store "registry" \(mysql\) did not answer: Unknown database '[^']+_missing'\n$/,
    );
  });
});
