import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { listenFailureText } from '../../../shared/log/listen-failure.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { heldPort } from '../../helpers/ports.ts';
import { spawnNode } from '../../helpers/processes.ts';

const web = { what: 'web process', host: '0.0.0.0', port: 3000, portVariable: 'PORT' };
const failure = (code: string, syscall: string) => Object.assign(new Error(`${syscall} ${code}`), { code, syscall });

describe('a process that cannot listen is told why in one line, and what to change', () => {
  it('the port in use names the port and the variable that moves it', () => {
    assert.equal(
      listenFailureText(failure('EADDRINUSE', 'listen'), web),
      'web process could not start: port 3000 is in use by another process; stop it, or choose another port with PORT (for example PORT=3001)',
    );
  });

  it('a port without the right, and an address the machine lacks, each get their own reason', () => {
    assert.match(
      listenFailureText(failure('EACCES', 'listen'), { ...web, port: 80 }),
      /not allowed to listen on 0\.0\.0\.0:80; ports below 1024/,
    );
    assert.match(
      listenFailureText(failure('EADDRNOTAVAIL', 'listen'), { ...web, host: '10.255.255.1' }),
      /no address 10\.255\.255\.1; set APP_HOST/,
    );
  });

  it("a connection's failure with the same code, and any other error, keep their own message", () => {
    assert.equal(
      listenFailureText(failure('EADDRNOTAVAIL', 'connect'), web),
      'web process could not start: connect EADDRNOTAVAIL',
    );
    assert.equal(listenFailureText(new Error('boom'), web), 'web process could not start: boom');
  });
});

describe('a process whose port is taken says so in one line and exits 1', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });

  const processes = [
    { what: 'web process', script: 'api/main.ts', portVariable: 'PORT' },
    { what: 'worker', script: 'worker/main.ts', portVariable: 'APP_WORKER__METRICS_PORT' },
  ];
  for (const { what, script, portVariable } of processes) {
    it(`the ${what} names the port and ${portVariable}, where it logged the stack of EADDRINUSE`, async () => {
      const held = await heldPort();
      try {
        const started = spawnNode(script, {
          DATABASE_URL: db.url,
          [portVariable]: String(held.port),
          APP_HOST: '127.0.0.1',
          NODE_ENV: 'test',
          LOG_LEVEL: 'info',
        });
        const [line] = await started.waitFor(new RegExp(`${what} could not start: [^\\n]*`), 60_000);
        assert.match(
          line,
          new RegExp(
            `port ${held.port} is in use by another process; stop it, or choose another port with ${portVariable}`,
          ),
        );
        assert.equal((await started.exitedWithin(30_000)).code, 1);
      } finally {
        await held.close();
      }
    });
  }
});
