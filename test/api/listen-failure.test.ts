import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { heldPort } from '../helpers/ports.ts';
import { spawnNode } from '../helpers/processes.ts';

describe('a web process whose port is taken says so in one line and exits 1', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });

  it('names the port and PORT, where the stack of EADDRINUSE was all there was', async () => {
    const held = await heldPort();
    try {
      const web = spawnNode('api/main.ts', {
        DATABASE_URL: db.url,
        PORT: String(held.port),
        APP_HOST: '127.0.0.1',
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
      });
      const [line] = await web.waitFor(/web process could not start: [^\n]*/, 60_000);
      assert.match(
        line,
        new RegExp(`port ${held.port} is in use by another process; stop it, or choose another port with PORT`),
      );
      assert.equal((await web.exitedWithin(30_000)).code, 1);
    } finally {
      await held.close();
    }
  });
});
