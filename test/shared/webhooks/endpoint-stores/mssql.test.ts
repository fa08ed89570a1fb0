/**
 * The mssql adapter. The contract runs against the SQL Server that TEST_MSSQL_URL names (either
 * form the adapter takes, e.g. `mssql://sa:Passw0rd!@127.0.0.1:1433/master?encrypt=false`), every
 * case in a table of its own, dropped at the end; without it the contract is skipped (no SQL Server
 * runs on the test machine; docs/endpoint-stores.md says how to start one in a container). How a
 * URL becomes the driver's configuration is checked either way.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  configFor,
  configFromUrl,
  openStore,
  poolFor,
  quoteIdentifier,
} from '../../../../shared/webhooks/endpoint-stores/mssql.ts';
import type { StoreContext } from '../../../../shared/webhooks/endpoint-stores/types.ts';
import { describeEndpointStoreContract } from './contract.ts';

const url = process.env.TEST_MSSQL_URL;

describe('mssql url and identifiers', () => {
  it('a mssql:// URL becomes the config object: credentials decoded, flags, database, port', () => {
    const config = configFromUrl(
      'mssql://sa:p%40ss%3Bword@db.example:14330/endpoints%20db?encrypt=false&trustServerCertificate=true',
    );
    assert.equal(config.server, 'db.example');
    assert.equal(config.port, 14330);
    assert.equal(config.user, 'sa');
    assert.equal(config.password, 'p@ss;word');
    assert.equal(config.database, 'endpoints db');
    assert.equal(config.options?.encrypt, false);
    assert.equal(config.options?.trustServerCertificate, true);
    assert.equal(config.options?.useUTC, true);
  });

  it('defaults: encrypted, certificate checked, port 1433 unless a named instance is asked', () => {
    const plain = configFromUrl('sqlserver://app@[::1]/db');
    assert.deepEqual(
      [plain.server, plain.port, plain.options?.encrypt, plain.options?.trustServerCertificate],
      ['::1', 1433, true, false],
    );
    const named = configFromUrl('mssql://app:x@host/db?instanceName=SQLEXPRESS&requestTimeout=5000');
    assert.equal(named.port, undefined);
    assert.equal(named.options?.instanceName, 'SQLEXPRESS');
    assert.equal(named.requestTimeout, 5000);
  });

  it('refuses what it cannot honour: another scheme, an unknown parameter, a flag that is not a boolean', () => {
    assert.throws(() => configFromUrl('postgres://h/db'), /expected mssql/);
    assert.throws(() => configFromUrl('mssql://h/db?encrypted=false'), /unknown parameter encrypted/);
    assert.throws(() => configFromUrl('mssql://h/db?encrypt=maybe'), /encrypt must be true or false/);
  });

  it('an ADO.NET connection string is read by the package; pool size and UTC dates unless it says otherwise', () => {
    const config = configFor('Server=db.example,1444;Database=hooks;User Id=sa;Password=x;Encrypt=false');
    assert.deepEqual(
      [config.server, config.port, config.database, config.user, config.options?.encrypt, config.options?.useUTC],
      ['db.example', 1444, 'hooks', 'sa', false, true],
    );
    assert.equal(config.pool?.max, 4);
    assert.equal(configFor('Server=h;Database=d;Max Pool Size=20').pool?.max, 20);
  });

  it('identifiers are bracketed with every ] doubled', () => {
    assert.equal(quoteIdentifier('app_webhooks'), '[app_webhooks]');
    assert.equal(quoteIdentifier('a]b; drop table x --'), '[a]]b; drop table x --]');
  });
});

if (url) {
  const tables = new Set<string>();
  after(async () => {
    const pool = await poolFor(url).connect();
    try {
      for (const table of tables) await pool.request().query(`DROP TABLE IF EXISTS ${quoteIdentifier(table)}`);
    } finally {
      await pool.close();
    }
  });
  const contextOf = (table: string): StoreContext => {
    tables.add(table);
    return { name: 'registry', options: { adapter: 'mssql', url }, table };
  };
  describeEndpointStoreContract('mssql', (table) => openStore(contextOf(table)), {
    child: (table) => ({ context: contextOf(table) }),
  });
} else {
  describe('endpoint store contract: mssql', {
    skip: 'TEST_MSSQL_URL is not set; run SQL Server in a container, see docs',
  }, () => {});
}
