/**
 * The Redis Streams sender against real redis-servers: the shared local one (no password) and
 * one of the test's own that asks for a password. Every test writes to keys of its own (a
 * random prefix, in a database number of its own) and deletes them after.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import type { RedisDestination } from '../../../shared/webhooks/destinations/parse.ts';
import { BODY_FIELD, createSender, MAX_UNANSWERED_BYTES } from '../../../worker/destinations/redis.ts';
import type { BrokerAttempt, BrokerSender } from '../../../worker/destinations/types.ts';
import { eventually } from '../../helpers/poll.ts';
import { TLS_CERT } from '../../fixtures/tls.ts';
import { freePort } from '../../helpers/ports.ts';
import { startTlsFront } from '../../helpers/tls-front.ts';
import { startRedisServer } from '../../helpers/private-brokers.ts';
import { closedAfter, proxy, senderOptions, testMessage } from './senders.ts';

const REDIS = 6379;
const sender = (idleMs?: number): BrokerSender<RedisDestination> => closedAfter(createSender(senderOptions(idleMs)));

let spaces = 0;
/**
 * A database number (9 to 15, the next each call: a server has 16) and a key prefix of the
 * calling test, and a client of its own there; its keys are deleted after.
 */
async function space() {
  const db = 9 + (spaces++ % 7);
  const prefix = `webhooks-test:${randomUUID()}:`;
  const client = new Redis({ host: '127.0.0.1', port: REDIS, db, lazyConnect: true });
  await client.connect();
  closedAfter({
    async close() {
      const keys = await client.keys(`${prefix}*`);
      if (keys.length > 0) await client.del(...keys);
      client.disconnect();
    },
  });
  return { db, key: (name: string) => `${prefix}${name}`, client };
}

function attempt(
  port: number,
  destination: Partial<RedisDestination> & { db: number; stream: string },
  timeoutMs = 2_000,
): BrokerAttempt<RedisDestination> {
  return {
    destination: { kind: 'redis', host: '127.0.0.1', port, tls: false, username: '', password: '', ...destination },
    dial: { address: '127.0.0.1', family: 4, host: '127.0.0.1', port },
    message: testMessage(),
    timeoutMs,
  };
}

describe('Redis Streams sender', () => {
  it('XADD acknowledges the attempt with the entry id; the entry holds every header as a field, then the body', async () => {
    const { db, key, client } = await space();
    const stream = key('events');
    const sent = attempt(REDIS, { db, stream });
    const result = await sender().send(sent);
    assert.equal(result.kind, 'acknowledged', JSON.stringify(result));
    const [[id, fields]] = await client.xrange(stream, '-', '+');
    assert.equal(result.kind === 'acknowledged' && result.detail, `entry ${id}`);
    const pairs = Object.entries(sent.message.headers).flat();
    assert.deepEqual(fields, [...pairs, BODY_FIELD, sent.message.body]);
  });

  it('maxlen trims the stream to about that many entries', async () => {
    const { db, key, client } = await space();
    const stream = key('trimmed');
    const redis = sender();
    for (let n = 0; n < 300; n++)
      assert.equal((await redis.send(attempt(REDIS, { db, stream, maxlen: 10 }))).kind, 'acknowledged');
    const length = await client.xlen(stream);
    assert.ok(length < 300, `trimmed: ${length} entries`);
  });

  it('attempts to one destination share one connection, another database has its own, and an idle connection is closed', async () => {
    const front = await proxy(REDIS);
    const { db, key } = await space();
    const other = await space();
    const redis = sender(300);
    const results = await Promise.all([1, 2, 3].map(() => redis.send(attempt(front.port, { db, stream: key('s') }))));
    assert.deepEqual(
      results.map((r) => r.kind),
      ['acknowledged', 'acknowledged', 'acknowledged'],
    );
    assert.equal(front.accepted, 1, 'one connection for three attempts');
    assert.equal(
      (await redis.send(attempt(front.port, { db: other.db, stream: other.key('s') }))).kind,
      'acknowledged',
    );
    assert.equal(front.accepted, 2, 'one more for the other database');
    await eventually(() => front.open === 0, 10_000, 'the idle connections closed');
    assert.equal((await redis.send(attempt(front.port, { db, stream: key('s') }))).kind, 'acknowledged');
    assert.equal(front.accepted, 3, 'a new connection after the idle one was closed');
  });

  it('a wrong password is rejected with WRONGPASS, none with NOAUTH, and the password is in no error text', async () => {
    const server = await startRedisServer('right-password');
    const redis = sender();
    const wrong = await redis.send(attempt(server.port, { db: 0, stream: 's', password: 'wrong-S3CRET' }));
    assert.equal(wrong.kind, 'rejected', JSON.stringify(wrong));
    assert.match(wrong.kind === 'rejected' ? wrong.error : '', /^WRONGPASS /);
    assert.doesNotMatch(JSON.stringify(wrong), /S3CRET/);
    const none = await redis.send(attempt(server.port, { db: 0, stream: 's' }));
    assert.match(none.kind === 'rejected' ? none.error : JSON.stringify(none), /^NOAUTH /);
    const right = await redis.send(attempt(server.port, { db: 0, stream: 's', password: 'right-password' }));
    assert.equal(right.kind, 'acknowledged', JSON.stringify(right));
  });

  it('a key that is not a stream is rejected with WRONGTYPE; once it is deleted the attempt is acknowledged', async () => {
    const { db, key, client } = await space();
    const stream = key('taken');
    await client.set(stream, 'a string');
    const redis = sender();
    const refused = await redis.send(attempt(REDIS, { db, stream }));
    assert.equal(refused.kind, 'rejected', JSON.stringify(refused));
    assert.match(refused.kind === 'rejected' ? refused.error : '', /^WRONGTYPE /);
    await client.del(stream);
    assert.equal((await redis.send(attempt(REDIS, { db, stream }))).kind, 'acknowledged');
  });

  it('a database number the server does not have is rejected, and nothing is written to database 0', async () => {
    const { key, client } = await space();
    const stream = key('nowhere');
    const result = await sender().send(attempt(REDIS, { db: 99, stream }));
    assert.equal(result.kind, 'rejected', JSON.stringify(result));
    assert.match(result.kind === 'rejected' ? result.error : '', /DB index is out of range/);
    const zero = new Redis({ host: '127.0.0.1', port: REDIS, db: 0, lazyConnect: true });
    await zero.connect();
    try {
      assert.equal(await zero.exists(stream), 0);
    } finally {
      zero.disconnect();
    }
    assert.equal(await client.exists(stream), 0);
  });

  it('a closed port is a connection error', async () => {
    const port = await freePort();
    const result = await sender().send(attempt(port, { db: 0, stream: 's' }));
    assert.equal(result.kind, 'connection-error', JSON.stringify(result));
    assert.match(result.kind === 'connection-error' ? result.error : '', /ECONNREFUSED/);
  });

  it('a server that announces a huge answer and streams it is cut at 64 kB beyond its last answer: a connection error, the socket closed', async () => {
    let closed = false;
    // answers the opening's commands, then an XADD with a bulk string of 2 GB it streams for ever
    const flooding = createServer((socket) => {
      socket.on('error', () => {});
      socket.on('close', () => {
        closed = true;
      });
      socket.on('data', (data) => {
        for (const command of data.toString().split(/(?=\*\d+\r\n\$)/)) {
          if (/XADD/i.test(command)) {
            socket.write('$2000000000\r\n');
            const chunk = Buffer.alloc(65_536, 0x61);
            const pump = () => {
              while (socket.writable && socket.write(chunk)) {
                // as fast as the socket takes it
              }
              if (socket.writable) socket.once('drain', pump);
            };
            pump();
          } else if (/INFO/i.test(command)) socket.write('$9\r\nloading:0\r\n');
          else if (command !== '') socket.write('+OK\r\n');
        }
      });
    });
    await new Promise<void>((resolve) => flooding.listen(0, '127.0.0.1', resolve));
    try {
      const result = await sender().send(attempt((flooding.address() as AddressInfo).port, { db: 0, stream: 's' }));
      assert.equal(result.kind, 'connection-error', JSON.stringify(result));
      assert.equal(
        result.kind === 'connection-error' ? result.error : '',
        `the server sent over ${MAX_UNANSWERED_BYTES} bytes without completing an answer`,
      );
      await eventually(() => closed || undefined, 5_000, 'the connection closed by the sender');
    } finally {
      flooding.close();
    }
  });

  it('an answer that never comes is a timeout within the bound; once the server answers again the next attempt reconnects and is acknowledged', async () => {
    const front = await proxy(REDIS);
    const { db, key } = await space();
    const stream = key('stalled');
    const redis = sender();
    assert.equal((await redis.send(attempt(front.port, { db, stream }))).kind, 'acknowledged');
    front.stall();
    const stalled = await redis.send(attempt(front.port, { db, stream }, 500));
    assert.equal(stalled.kind === 'timeout' && stalled.error, 'no XADD answer within 500 ms', JSON.stringify(stalled));
    assert.ok('durationMs' in stalled && stalled.durationMs < 2_000, `bounded: ${JSON.stringify(stalled)}`);
    const connecting = await redis.send(attempt(front.port, { db, stream }, 500));
    assert.equal(connecting.kind, 'timeout', JSON.stringify(connecting));
    front.flow();
    await eventually(
      async () => (await redis.send(attempt(front.port, { db, stream }, 1_000))).kind === 'acknowledged',
      10_000,
      'an acknowledged attempt after the stall',
    );
  });

  it('a dropped connection (a server restart) is discarded: the next attempts connect anew', async () => {
    const front = await proxy(REDIS);
    const { db, key } = await space();
    const stream = key('cut');
    const redis = sender();
    assert.equal((await redis.send(attempt(front.port, { db, stream }))).kind, 'acknowledged');
    await front.cut(); // a broker restart, as the client sees it: every connection dropped
    await front.restore();
    const kinds: string[] = [];
    await eventually(
      async () => {
        const result = await redis.send(attempt(front.port, { db, stream }));
        kinds.push(result.kind);
        return result.kind === 'acknowledged';
      },
      10_000,
      'an acknowledged attempt after the cut',
    );
    assert.ok(kinds.length <= 2, `at most one failed attempt: ${kinds.join(', ')}`);
    assert.equal(front.accepted, 2);
  });
});

describe('Redis Streams sender over TLS (rediss)', () => {
  it('connects to the checked address and verifies the certificate for the URL host name (servername)', async () => {
    const front = closedAfter(await startTlsFront(REDIS));
    const { db, key, client } = await space();
    const stream = key('tls');
    const overTls = (): BrokerAttempt<RedisDestination> => ({
      ...attempt(front.port, { db, stream, host: 'hooks.example.test', tls: true }),
      dial: { address: '127.0.0.1', family: 4, host: 'hooks.example.test', port: front.port },
    });
    const trusting = closedAfter(createSender({ ...senderOptions(), ca: TLS_CERT }));
    const result = await trusting.send(overTls());
    assert.equal(result.kind, 'acknowledged', JSON.stringify(result));
    assert.deepEqual(front.names, ['hooks.example.test'], 'SNI carries the host name, not the address');
    assert.equal(await client.xlen(stream), 1, 'the entry is in the stream');
    const untrusted = await sender().send(overTls());
    assert.notEqual(untrusted.kind, 'acknowledged', 'a certificate the sender does not trust is refused');
    assert.match('error' in untrusted ? untrusted.error : '', /self.signed|certificate/i, JSON.stringify(untrusted));
    assert.equal(await client.xlen(stream), 1, 'nothing more was added');
  });
});
