import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { before, describe, it } from 'node:test';
import { startFailureText } from '../../api/start-failure.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { spawnNode } from '../helpers/processes.ts';

describe('a web process that cannot listen says why in one line, and what to change', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });

  it('port taken: exit 1 with a line naming the port and PORT, where the stack of EADDRINUSE was all there was', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const web = spawnNode('api/main.ts', {
        DATABASE_URL: db.url,
        PORT: String(port),
        APP_HOST: '127.0.0.1',
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
      });
      const [line] = await web.waitFor(/port \d+ is in use by another process[^\n]*/, 60_000);
      assert.match(
        line,
        new RegExp(
          `port ${port} is in use by another process; stop it, or choose another port with PORT \\(for example PORT=${port + 1}\\)`,
        ),
      );
      assert.equal((await web.exitedWithin(30_000)).code, 1);
    } finally {
      holder.close();
    }
  });

  it('an address the machine lacks, a port without the right, and any other error each get their own reason', () => {
    const failure = (code: string) => Object.assign(new Error(`listen ${code}`), { code });
    assert.match(
      startFailureText(failure('EADDRNOTAVAIL'), { host: '10.255.255.1', port: 3000 }),
      /no address 10\.255\.255\.1; set APP_HOST/,
    );
    assert.match(
      startFailureText(failure('EACCES'), { host: '0.0.0.0', port: 80 }),
      /not allowed to listen on 0\.0\.0\.0:80; ports below 1024/,
    );
    assert.equal(
      startFailureText(new Error('boom'), { host: '0.0.0.0', port: 3000 }),
      'web process could not start: boom',
    );
  });
});
