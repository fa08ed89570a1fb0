/**
 * `npm start` (deploy/local/start.ts) end to end: the release, then web and worker under one
 * supervisor; `--allow-local` lets a receiver on this machine be registered and delivered to;
 * Ctrl-C stops web, then worker, each exiting 0. The database is the test's (DATABASE_URL set,
 * so no embedded server is started and `.data/` is left alone).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { LOCAL_DATABASE_FILE } from '../../../shared/db/local-database.ts';
import { createToken } from '../../../shared/tokens/tokens.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { ROOT, spawnNode } from '../../helpers/processes.ts';
import { freePort } from '../../helpers/ports.ts';
import { startReceiver } from '../../worker/delivery/receiver.ts';

describe('npm start', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('with --allow-local runs release, web and worker, says where the console is; a local receiver gets a signed delivery; Ctrl-C stops them all with exit 0', async () => {
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
    // a test that failed before its Ctrl-C still stops web and worker: they run in process groups
    // of their own, which only the supervisor stops (a SIGKILL of it would leave them running)
    cleanups.push(async () => {
      if (start.child.exitCode !== null) return;
      start.child.kill('SIGINT');
      await start.exitedWithin(40_000).catch(() => start.child.kill('SIGKILL'));
    });
    await start.waitFor(/release\s+\| (applied|database is up to date)/, 60_000);
    await start.waitFor(/web\s+\|.*web process ready/, 60_000);
    await start.waitFor(/worker\s+\|.*worker started/, 60_000);
    // where to open the console, from the port it was given
    assert.match(start.output(), new RegExp(`start\\s+\\| the console and the API: http://localhost:${port}/ `));

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
  it('stops web, worker and itself when the shell npm ran it under dies of the SIGTERM npm forwards', async () => {
    const db = await createTestDatabase();
    const port = await freePort();
    // `sh -c` as npm runs a script, with a command the shell cannot hand its process over to
    // (what dash does with any): the shell stays the parent, and prints the supervisor's pid
    const shell = spawn('sh', ['-c', `"${process.execPath}" deploy/local/start.ts & echo "pid $!"; wait`], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        PORT: String(port),
        NODE_ENV: 'development',
        APP_SECRET: 'a local application secret, long enough for any check',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    shell.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    shell.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    // every holder of the pipe gone: the shell, the supervisor and the processes it started
    const closed = new Promise<void>((resolve) => shell.stdout.once('close', () => resolve()));
    const seen = async (pattern: RegExp, timeoutMs: number) => {
      const until = Date.now() + timeoutMs;
      while (!pattern.test(output)) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${pattern}; output:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return pattern.exec(output) as RegExpExecArray;
    };
    const supervisor = Number((await seen(/pid (\d+)/, 10_000))[1]);
    cleanups.push(async () => {
      try {
        process.kill(supervisor, 'SIGTERM');
      } catch {}
      await closed;
    });
    await seen(/web\s+\|.*web process ready/, 60_000);
    await seen(/worker\s+\|.*worker started/, 60_000);

    shell.kill('SIGTERM');
    await seen(/worker\s+\| exited with code 0/, 30_000);
    assert.match(output, /parent process gone: stopping web, worker/);
    assert.match(output, /web\s+\| exited with code 0/);
    await closed;
  });

  it('stops web and worker with exit 0 when the reader of its output has gone (`npm start | tee`, whose tee the Ctrl-C ends too)', async () => {
    const db = await createTestDatabase();
    const port = await freePort();
    const workerPort = await freePort();
    const start = spawnNode('deploy/local/start.ts', {
      DATABASE_URL: db.url,
      PORT: String(port),
      NODE_ENV: 'development',
      APP_SECRET: 'a local application secret, long enough for any check',
      LOG_LEVEL: 'info',
      APP_WORKER__METRICS_PORT: String(workerPort),
      // a worker left behind by a failing run gives up soon once the test's database is gone
      APP_WORKER__OUTAGE_LIMIT: '5s',
    });
    cleanups.push(async () => {
      if (start.child.exitCode !== null) return;
      start.child.kill('SIGINT');
      await start.exitedWithin(40_000).catch(() => start.child.kill('SIGKILL'));
    });
    await start.waitFor(/web\s+\|.*web process ready/, 60_000);
    await start.waitFor(/worker\s+\|.*worker started/, 60_000);
    const workerLive = () =>
      fetch(`http://127.0.0.1:${workerPort}/livez`).then(
        (answer) => answer.status,
        () => 'gone' as const,
      );
    assert.equal(await workerLive(), 200);

    // the reading end of its output closed, as a pipe's reader that died of the same Ctrl-C
    start.child.stdout?.destroy();
    start.child.stderr?.destroy();
    start.child.kill('SIGINT');
    const exit = await start.exitedWithin(40_000);
    assert.equal(exit.code, 0, 'the stop ran to its end');
    // the supervisor exits once the worker has: nothing of it is left answering
    assert.equal(await workerLive(), 'gone');
  });

  it('refuses in one line, exit 1, while another npm start runs on .data/postgres', async () => {
    // the record a running npm start leaves, unless one is running here already: either way, a
    // live record (this process stands for the one whose record it would be)
    const record = !existsSync(LOCAL_DATABASE_FILE);
    if (record) {
      mkdirSync(dirname(LOCAL_DATABASE_FILE), { recursive: true });
      writeFileSync(
        LOCAL_DATABASE_FILE,
        JSON.stringify({ url: 'postgres://postgres@127.0.0.1:1/app', pid: process.pid, allowLocal: false }),
      );
    }
    const second = spawnNode('deploy/local/start.ts', {
      DATABASE_URL: undefined,
      APP_DATABASE_URL: undefined,
      PORT: String(await freePort()),
      NODE_ENV: 'development',
    });
    cleanups.push(async () => {
      if (second.child.exitCode === null) {
        second.child.kill('SIGINT');
        await second.exited;
      }
      if (record) rmSync(LOCAL_DATABASE_FILE, { force: true });
    });
    const exit = await second.exitedWithin(20_000);
    assert.equal(exit.code, 1, second.output());
    assert.match(second.output(), /^start +\| npm start is already running.* stop it first, or set DATABASE_URL$/m);
    assert.doesNotMatch(second.output(), /\n\s+at /, 'no stack trace');
  });
});
