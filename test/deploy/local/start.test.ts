/**
 * `npm start` (deploy/local/start.ts) end to end: the release, then web and worker under one
 * supervisor; `--allow-local` lets a receiver on this machine be registered and delivered to;
 * Ctrl-C stops web, then worker, each exiting 0. The database is the test's (DATABASE_URL set,
 * so no embedded server is started and `.data/` is left alone).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createToken } from '../../../shared/tokens/tokens.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { spawnNode } from '../../helpers/processes.ts';
import { freePort } from '../../helpers/ports.ts';
import { startReceiver } from '../../worker/delivery/receiver.ts';

describe('npm start', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('with --allow-local runs release, web and worker; a local receiver gets a signed delivery; Ctrl-C stops them all with exit 0', async () => {
    const db = await createTestDatabase();
    let delivered: (body: string) => void = () => {};
    const arrived = new Promise<string>((resolve) => {
      delivered = resolve;
    });
    const receiver = await startReceiver((_req, res, body) => {
      res.end('ok');
      delivered(body.toString('utf8'));
    });
    cleanups.push(() => receiver.close());

    const port = await freePort();
    const start = spawnNode(
      'deploy/local/start.ts',
      {
        DATABASE_URL: db.url,
        PORT: String(port),
        NODE_ENV: 'development',
        APP_SECRET: 'a local application secret, long enough for any check',
        LOG_LEVEL: 'info',
        APP_WEBHOOKS__ALLOW_HTTP: undefined,
        APP_WEBHOOKS__ALLOW_PRIVATE: undefined,
      },
      ['--allow-local'],
    );
    cleanups.push(async () => {
      if (start.child.exitCode === null) start.child.kill('SIGKILL');
    });
    await start.waitFor(/release\s+\| (applied|database is up to date)/, 60_000);
    await start.waitFor(/web\s+\|.*web process ready/, 60_000);
    await start.waitFor(/worker\s+\|.*worker started/, 60_000);

    const { token } = await createToken({ sql: db.sql, log: db.log }, { name: 'start-test', role: 'admin' });
    const api = `http://127.0.0.1:${port}/api/v1`;
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/hal+json',
    };
    const created = await fetch(`${api}/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `${receiver.origin}/hook`, events: ['order.*'] }),
    });
    const endpoint = (await created.json()) as { secret: string };
    assert.equal(created.status, 201, JSON.stringify(endpoint));
    const emitted = await fetch(`${api}/events`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ type: 'order.created', data: { id: 42 } }),
    });
    assert.equal(emitted.status, 202, await emitted.text());

    const body = await arrived;
    const request = receiver.requests[0];
    const verified = new Webhook(endpoint.secret).verify(body, request.headers as Record<string, string>) as {
      type: string;
      data: unknown;
    };
    assert.equal(verified.type, 'order.created');
    assert.deepEqual(verified.data, { id: 42 });

    start.child.kill('SIGINT');
    const exit = await start.exited;
    assert.equal(exit.code, 0, start.output());
    const output = start.output();
    assert.match(output, /web\s+\| exited with code 0/);
    assert.match(output, /worker\s+\| exited with code 0/);
    assert.ok(output.indexOf('web      | exited') < output.indexOf('worker   | exited'), 'web stops before the worker');
  });
});
