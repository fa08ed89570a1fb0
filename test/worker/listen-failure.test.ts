import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { heldPort } from '../helpers/ports.ts';
import { spawnNode } from '../helpers/processes.ts';

describe("a worker whose listener's port is taken says so in one line and exits 1", () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });

  it('names the port and APP_WORKER__METRICS_PORT', async () => {
    const held = await heldPort();
    try {
      const worker = spawnNode('worker/main.ts', {
        DATABASE_URL: db.url,
        APP_WORKER__METRICS_PORT: String(held.port),
        APP_HOST: '127.0.0.1',
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
      });
      const [line] = await worker.waitFor(/worker could not start: [^\n]*/, 60_000);
      assert.match(
        line,
        new RegExp(
          `port ${held.port} is in use by another process; stop it, or choose another port with APP_WORKER__METRICS_PORT`,
        ),
      );
      assert.equal((await worker.exitedWithin(30_000)).code, 1);
    } finally {
      await held.close();
    }
  });
});
