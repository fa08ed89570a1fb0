/**
 * docs/receiving.md, the receivers' guide: its Node and Python snippets, run exactly as the guide
 * prints them, accept a real signed delivery of this service (made by the real worker), refuse
 * the same request with the body tampered with or with a timestamp from 10 minutes ago, and
 * handle a repeated `webhook-id` once. The Python one needs the `standardwebhooks` package; when
 * it is not installed the test says so and skips.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createTestDatabase } from '../helpers/database.ts';
import { ROOT } from '../helpers/processes.ts';
import { freePort } from '../helpers/ports.ts';
import { endpoint, harness, runOnce, send } from '../worker/helpers.ts';
import { eventually } from '../helpers/poll.ts';
import { snippet } from './guide.ts';

const children: ChildProcess[] = [];
after(() => {
  for (const child of children) child.kill('SIGKILL');
});

const pythonSkip = (() => {
  const probe = spawnSync('python3', ['-c', 'import standardwebhooks'], { encoding: 'utf8' });
  return probe.status === 0
    ? false
    : `python standardwebhooks package not installed (${(probe.error?.message ?? probe.stderr.trim().split('\n').at(-1) ?? 'no python3').slice(0, 120)}); .ci/run tries to install it`;
})();
if (pythonSkip) process.stdout.write(`# receiving guide: Python snippet skipped: ${pythonSkip}\n`);

const RUNNERS: { name: string; skip: string | false; start(code: string, env: NodeJS.ProcessEnv): ChildProcess }[] = [
  {
    name: 'node',
    skip: false,
    start: (code, env) => spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, env }),
  },
  { name: 'python', skip: pythonSkip, start: (code, env) => spawn('python3', ['-c', code], { cwd: ROOT, env }) },
];

for (const runner of RUNNERS) {
  describe(`docs/receiving.md: the ${runner.name} snippet`, { skip: runner.skip }, () => {
    it('accepts a real signed delivery, refuses a tampered body and a stale timestamp, and handles a repeated webhook-id once', async () => {
      const db = await createTestDatabase();
      const h = harness(db);
      const port = await freePort();
      const ep = await endpoint(h, `http://127.0.0.1:${port}/webhooks`);
      const child = runner.start(snippet(runner.name), {
        ...process.env,
        WEBHOOK_SECRET: ep.secret,
        PORT: String(port),
      });
      children.push(child);
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      // the receiver is up once it accepts a connection
      await eventually(
        async () =>
          (await fetch(`http://127.0.0.1:${port}/webhooks`, { method: 'POST', body: '{}' }).then(
            (r) => r.status,
            () => 0,
          )) === 400,
        15_000,
        `the ${runner.name} receiver listening; output: ${output}`,
      );

      const [id] = await send(h, ep, 'order.created', { order: 42 });
      await runOnce(h);
      const [row] = await db.sql<
        { status: string; body: string }[]
      >`select status, body from app_webhook_deliveries where id = ${id}`;
      assert.equal(row.status, 'done', `the receiver answered 2xx to the real delivery; output: ${output}`);
      await eventually(() => output.includes(id), 10_000, 'the receiver printed the event');
      const printed = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { id: string; type: string; data: unknown });
      assert.deepEqual(printed, [{ id, type: 'order.created', data: { order: 42 } }]);

      const post = (body: string, headers: Record<string, string>) =>
        fetch(`http://127.0.0.1:${port}/webhooks`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', ...headers },
        }).then((r) => r.status);
      const fresh = new Date();
      const signed = (msgId: string, at: Date, body: string) => ({
        'webhook-id': msgId,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(ep.secret).sign(msgId, at, body),
      });
      assert.equal(await post(row.body, signed(id, fresh, row.body)), 204, 'a repeat of the delivery is answered');
      assert.equal(
        await post(row.body.replace('42', '43'), signed(id, fresh, row.body)),
        400,
        'a tampered body is refused',
      );
      assert.equal(
        await post(row.body, signed(id, new Date(Date.now() - 10 * 60_000), row.body)),
        400,
        'a stale timestamp is refused',
      );
      // a new delivery after those: once it is printed, the receiver has handled every request before it
      const sentinel = 'msg_01SENT1NE10000000000000000';
      const sentinelBody = row.body.replaceAll(id, sentinel);
      assert.equal(await post(sentinelBody, signed(sentinel, new Date(), sentinelBody)), 204);
      await eventually(() => output.includes(sentinel), 10_000, 'the sentinel printed');
      const ids = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => (JSON.parse(line) as { id: string }).id);
      assert.deepEqual(ids, [id, sentinel], `the repeated webhook-id was handled once: ${output}`);
    });
  });
}

describe('docs/receiving.md: the Node ed25519 snippet', () => {
  it("verifies a real v1a, delivery with the endpoint's public key, and refuses a tampered body", async () => {
    const { startReceiver } = await import('../worker/delivery/receiver.ts');
    const db = await createTestDatabase();
    const h = harness(db);
    const receiver = await startReceiver((_req, res) => res.end('ok'));
    try {
      const ep = await endpoint(h, `${receiver.origin}/hook`, { signing: 'ed25519' });
      await send(h, ep);
      await runOnce(h);
      const request = await eventually(() => receiver.requests[0]);
      const check = (body: Buffer) => {
        const code = `${snippet('node-ed25519')}\nprocess.stdout.write(String(verified(JSON.parse(process.env.HEADERS), Buffer.from(process.env.BODY, 'base64'))));`;
        const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
          cwd: ROOT,
          encoding: 'utf8',
          env: {
            ...process.env,
            WEBHOOK_PUBLIC_KEY: ep.secret,
            HEADERS: JSON.stringify(request.headers),
            BODY: body.toString('base64'),
          },
        });
        assert.equal(run.status, 0, run.stderr);
        return run.stdout;
      };
      assert.equal(check(request.body), 'true');
      assert.equal(check(Buffer.concat([request.body, Buffer.from(' ')])), 'false');
    } finally {
      await receiver.close();
    }
  });
});
