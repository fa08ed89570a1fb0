/**
 * The delivery outcome table (what each answer of the receiver does: docs/receiving.md), row by
 * row, through the real worker against real receivers on the loopback: what the delivery, its
 * attempts and its jobs look like after one run.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HostLookup } from '../../shared/webhooks/address-rules.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from './delivery/receiver.ts';
import {
  attemptRows,
  deliveryRow,
  endpoint,
  harness,
  jobRows,
  runOnce,
  send,
  type AttemptRow,
  type DeliveryRow,
  type Harness,
  type JobRow,
} from './helpers.ts';

const db = await createTestDatabase();
/** Retries far away (1 h ± 20 %), so one run makes exactly one attempt; 500 ms timeout. */
const h: Harness = harness(db, {
  webhooks: { timeout: '500ms', backoff: { base: '1h', factor: 3, max: '6h', jitter: 0.2 } },
});

type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

const answer =
  (status: number, headers: Record<string, string> = {}, text = `answer ${status}`): Handler =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end(text);
  };

const TEN_MB = 10 * 1024 * 1024;
const streamTenMegabytes: Handler = (_req, res) => {
  res.writeHead(200, { 'content-length': String(TEN_MB) });
  const chunk = Buffer.alloc(16 * 1024, 'a');
  let written = 0;
  const pump = () => {
    while (written < TEN_MB && !res.destroyed) {
      written += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    if (written >= TEN_MB) res.end();
  };
  pump();
};

interface Row {
  trigger: string;
  /** The receiver's behaviour; `target` is a second receiver (a redirect's destination). */
  handler: Handler | { toTarget: (target: Receiver) => Handler };
  result: 'done' | 'retry' | 'dead';
  status: number | null;
  error?: RegExp;
  check?: (seen: { delivery: DeliveryRow; attempts: AttemptRow[]; jobs: JobRow[]; target: Receiver }) => void;
}

/** The outcome table as data; every row ends in the state the table gives it next. */
const ROWS: Row[] = [
  { trigger: 'receiver answers 200: delivered (done)', handler: answer(200), result: 'done', status: 200 },
  { trigger: 'receiver answers 201: delivered (done)', handler: answer(201), result: 'done', status: 201 },
  {
    trigger: 'receiver answers 301 with Location: dead at once, redirect not followed, the error names the Location',
    handler: { toTarget: (target: Receiver) => answer(301, { location: `${target.origin}/moved-here` }) },
    result: 'dead',
    status: 301,
    error: /301.*\/moved-here/,
    check: ({ target }) => assert.equal(target.requests.length, 0, 'the redirect target saw no request'),
  },
  {
    trigger: 'receiver redirects to a private address: dead at once, nothing follows it',
    handler: answer(302, { location: 'http://10.0.0.1/internal' }),
    result: 'dead',
    status: 302,
    error: /10\.0\.0\.1\/internal/,
  },
  {
    trigger: 'receiver answers 400: failed, retried with backoff',
    handler: answer(400),
    result: 'retry',
    status: 400,
    error: /400/,
  },
  {
    trigger: "receiver answers 429 with Retry-After: retried on the queue's backoff, Retry-After ignored",
    handler: answer(429, { 'retry-after': '2' }),
    result: 'retry',
    status: 429,
    error: /429/,
  },
  {
    trigger: 'receiver answers 500: failed, retried with backoff',
    handler: answer(500),
    result: 'retry',
    status: 500,
    error: /500/,
  },
  {
    trigger: 'receiver answers 503: failed, retried with backoff',
    handler: answer(503),
    result: 'retry',
    status: 503,
    error: /503/,
  },
  {
    trigger: 'receiver never answers: no complete answer within webhooks.timeout, retried',
    handler: () => {},
    result: 'retry',
    status: null,
    error: /timeout/,
  },
  {
    trigger: 'receiver sends the headers then stalls the body: the whole exchange times out, retried',
    handler: (_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('partial');
    },
    result: 'retry',
    status: null,
    error: /timeout/,
  },
  {
    trigger: 'receiver closes the connection mid-answer: connection error, retried',
    handler: (req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('only a part', () => req.socket.destroy());
    },
    result: 'retry',
    status: null,
    error: /connection error/,
  },
  {
    trigger: 'receiver streams 10 MB: done, only the first 64 kB read and kept as the excerpt',
    handler: streamTenMegabytes,
    result: 'done',
    status: 200,
    check: ({ attempts }) => assert.equal(Buffer.byteLength(attempts[0].excerpt ?? ''), 65_536),
  },
];

describe('delivery outcome table, one run per row', () => {
  const receivers: Receiver[] = [];
  const seen = new Map<string, { id: string; target: Receiver; receiver: Receiver; before: number }>();
  const stopped: Receiver[] = [];
  after(async () => {
    for (const r of [...receivers, ...stopped]) await r.close();
  });

  before(async () => {
    for (const row of ROWS) {
      const target = await startReceiver(answer(200));
      const handler = typeof row.handler === 'function' ? row.handler : row.handler.toTarget(target);
      const receiver = await startReceiver(handler);
      receivers.push(target, receiver);
      const ep = await endpoint(h, `${receiver.origin}/hook`);
      const [id] = await send(h, ep);
      seen.set(row.trigger, { id, target, receiver, before: Date.now() });
    }
    await runOnce(h);
  });

  for (const row of ROWS) {
    it(row.trigger, async () => {
      const { id, target, receiver, before: emittedAt } = seen.get(row.trigger)!;
      const delivery = (await deliveryRow(h, id))!;
      const attempts = await attemptRows(h, id);
      const jobs = await jobRows(h, id);
      assert.equal(receiver.requests.length, 1, 'one request reached the receiver');
      assert.equal(attempts.length, 1, 'one attempt recorded');
      assert.equal(attempts[0].outcome, row.result);
      assert.equal(attempts[0].status, row.status);
      assert.equal(delivery.last_status, row.status);
      assert.equal(delivery.attempts, 1);
      if (row.error) {
        assert.match(attempts[0].error ?? '', row.error);
        assert.match(delivery.last_error ?? '', row.error);
      } else {
        assert.equal(attempts[0].error, null);
      }
      if (row.result === 'retry') {
        assert.equal(delivery.status, 'pending', 'waiting for its retry');
        assert.equal(jobs.length, 1, 'exactly one live job for the delivery');
        const delay = new Date(jobs[0].run_at).getTime() - emittedAt;
        assert.ok(
          delay >= 0.8 * 3_600_000 - 5_000 && delay <= 1.2 * 3_600_000 + 5_000,
          `retry in ${delay} ms, not within 1 h ± 20 %`,
        );
        assert.equal(new Date(jobs[0].run_at).getTime(), new Date(delivery.next_attempt_at!).getTime());
        assert.equal(jobs[0].max_attempts, 1);
        assert.equal(jobs[0].attempts, 0);
      } else {
        assert.equal(delivery.status, row.result);
        assert.ok(delivery.completed_at !== null);
        assert.equal(delivery.next_attempt_at, null);
        assert.equal(jobs.length, 0, 'no job left: nothing further is queued');
      }
      row.check?.({ delivery, attempts, jobs, target });
    });
  }
});

describe('delivery outcome table: 410 and refused addresses', () => {
  const receivers: Receiver[] = [];
  after(async () => {
    for (const r of receivers) await r.close();
  });

  it('410: failed without retry, the endpoint is disabled and its pending deliveries stop (dead, jobs removed)', async () => {
    const one = harness(db, { webhooks: { concurrency: 1 } });
    const receiver = await startReceiver(answer(410));
    receivers.push(receiver);
    const ep = await endpoint(one, `${receiver.origin}/gone`);
    const ids = [...(await send(one, ep)), ...(await send(one, ep)), ...(await send(one, ep))];
    await runOnce(one);
    assert.equal(receiver.requests.length, 1, 'only the first delivery was sent');
    const rows = await Promise.all(ids.map((id) => deliveryRow(one, id)));
    assert.deepEqual(
      rows.map((row) => row!.status),
      ['dead', 'dead', 'dead'],
    );
    const sent = rows.find((row) => row!.attempts === 1)!;
    assert.equal(sent.last_status, 410);
    assert.match(sent.last_error!, /410/);
    for (const row of rows.filter((r) => r !== sent)) {
      assert.equal(row!.attempts, 0);
      assert.match(
        row!.last_error!,
        new RegExp(`not sent: endpoint ${ep.id} was disabled after the receiver answered 410`),
      );
    }
    const [endpointRow] = await one.sql<{ disabled_at: Date | null; disabled_reason: string | null }[]>`
      select disabled_at, disabled_reason from app_webhooks where id = ${ep.id}`;
    assert.ok(endpointRow.disabled_at !== null, 'endpoint disabled');
    assert.match(endpointRow.disabled_reason!, /410 Gone/);
    for (const id of ids) assert.equal((await jobRows(one, id)).length, 0, 'no job left for any of its deliveries');
    assert.deepEqual(await send(one, ep), [], 'an emit queues nothing more for it');
  });

  it('a name resolving to a public and a private address is refused: dead at once, the error carries the address, nothing connects', async () => {
    const strict = harness(db, { webhooks: { allowPrivate: false } });
    const receiver = await startReceiver(answer(200));
    receivers.push(receiver);
    const publicOnly: HostLookup = async () => [{ address: '93.184.215.14', family: 4 }];
    const mixed: HostLookup = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const ep = await endpoint(strict, `http://hooks.example.test:${receiver.port}/in`, { lookup: publicOnly });
    const [id] = await send(strict, ep);
    await runOnce(strict, { lookup: mixed });
    const delivery = (await deliveryRow(strict, id))!;
    assert.equal(delivery.status, 'dead');
    assert.match(delivery.last_error!, /address 127\.0\.0\.1 refused \(loopback/);
    const attempts = await attemptRows(strict, id);
    assert.equal(attempts.length, 1);
    assert.equal(attempts[0].outcome, 'dead');
    assert.equal(attempts[0].status, null);
    assert.equal(receiver.connections, 0, 'no connection reached the receiver');
    assert.equal((await jobRows(strict, id)).length, 0);
  });

  it('an IP literal in a refused range is refused at request time, even though it was accepted at registration', async () => {
    const loose = harness(db);
    const strict = harness(db, { webhooks: { allowPrivate: false } });
    const receiver = await startReceiver(answer(200));
    receivers.push(receiver);
    const ep = await endpoint(loose, `${receiver.origin}/in`);
    const [id] = await send(loose, ep);
    await runOnce(strict);
    const delivery = (await deliveryRow(strict, id))!;
    assert.equal(delivery.status, 'dead');
    assert.match(delivery.last_error!, /address 127\.0\.0\.1 refused/);
    assert.equal(receiver.connections, 0);
  });
});
