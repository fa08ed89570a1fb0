/**
 * The NATS JetStream sender against a real nats-server: a PubAck is `acknowledged` and the
 * stream holds the body with the Standard Webhooks headers (verified by `standardwebhooks`) and
 * `Nats-Msg-Id` = the delivery id, so a retry is de-duplicated; a subject no stream captures and
 * a refused login are `rejected` with the reason, as is a message over the server's size limit
 * (the connection kept); a closed port is a `connection-error`; a server that stops answering is
 * a `timeout` within the bound; connections are pooled, reused, closed when idle, and replaced
 * after the server drops them. No error text holds the password.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { NatsDestination } from '../../../shared/webhooks/destinations/parse.ts';
import { connect } from '@nats-io/transport-node';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { createSender, MAX_GREETING_BYTES } from '../../../worker/destinations/nats.ts';
import { eventually } from '../../helpers/poll.ts';
import { NATS, natsAdmin, privateNatsServer } from '../../helpers/nats.ts';
import { freePort } from '../../helpers/ports.ts';
import { TLS_CERT, TLS_KEY } from '../../fixtures/tls.ts';
import { attemptTo, capturedLog, SECRET, unique } from './attempts.ts';
import {
  closesWhileStalled,
  proxyTo,
  reconnectsAfterADrop,
  sharesOneConnectionClosedWhenIdle,
  timesOutThenRecovers,
} from './faults.ts';

const { log, lines } = capturedLog();
const sender = createSender({ log });
after(async () => {
  await sender.close();
});

const BROKER = `nats://${NATS.host}:${NATS.port}`;

/** A stream of the test's own and the subject it captures. */
async function streamAndSubject(): Promise<{ stream: string; subject: string }> {
  const stream = unique('S');
  const subject = `${unique('hooks')}.orders`;
  await (await natsAdmin()).stream(stream, subject);
  return { stream, subject };
}

const proxy = () => proxyTo(`nats://${NATS.host}:${NATS.port}`);

describe('nats sender', () => {
  it('a PubAck is acknowledged; the stream holds the body, the headers and Nats-Msg-Id, and standardwebhooks verifies it', async () => {
    const { stream, subject } = await streamAndSubject();
    const attempt = await attemptTo<NatsDestination>(`${BROKER}/${subject}`, { headers: { 'x-tenant': 'acme' } });
    const result = await sender.send(attempt);
    assert.equal(result.kind, 'acknowledged', JSON.stringify(result));
    assert.match(result.kind === 'acknowledged' ? result.detail : '', new RegExp(`stream ${stream} seq 1`));
    const [stored] = await (await natsAdmin()).take(stream);
    assert.equal(stored.string(), attempt.message.body);
    assert.equal(stored.header.get('Nats-Msg-Id'), attempt.message.id);
    assert.equal(stored.header.get('x-tenant'), 'acme', "the endpoint's own headers travel too");
    const headers = Object.fromEntries(stored.header.keys().map((key) => [key.toLowerCase(), stored.header.get(key)]));
    const verified = new Webhook(SECRET).verify(stored.string(), headers);
    assert.deepEqual((verified as { data: unknown }).data, { n: 1 });
  });

  it('a retry of a stored message is de-duplicated by the stream and acknowledged', async () => {
    const { stream, subject } = await streamAndSubject();
    const attempt = await attemptTo<NatsDestination>(`${BROKER}/${subject}`);
    assert.equal((await sender.send(attempt)).kind, 'acknowledged');
    const again = await sender.send(attempt);
    assert.equal(again.kind, 'acknowledged');
    assert.match(again.kind === 'acknowledged' ? again.detail : '', /duplicate/);
    assert.equal((await (await natsAdmin()).jsm.streams.info(stream)).state.messages, 1);
  });

  it('a subject no stream captures is rejected: no responders', async () => {
    const subject = `${unique('nobody')}.orders`;
    const result = await sender.send(await attemptTo(`${BROKER}/${subject}`));
    assert.equal(result.kind, 'rejected', JSON.stringify(result));
    assert.equal(
      result.kind === 'rejected' ? result.error : '',
      `no stream captures subject ${subject} (no responders)`,
    );
  });

  it("a message over the server's max_payload is rejected with both sizes, and its connection serves the next one", async () => {
    const { stream, subject } = await streamAndSubject();
    const tcp = await proxy();
    const url = `nats://127.0.0.1:${tcp.port}/${subject}`;
    const probe = await connect({ servers: `${NATS.host}:${NATS.port}` });
    const limit = probe.info!.max_payload;
    await probe.close();
    const big = await attemptTo<NatsDestination>(url);
    big.message.body = 'x'.repeat(limit + 1);
    const result = await sender.send(big);
    assert.equal(result.kind, 'rejected', JSON.stringify(result).slice(0, 300));
    assert.equal(
      result.kind === 'rejected' ? result.error : '',
      `the message (${limit + 1} bytes of body, with its headers) is over the server's max_payload of ${limit} bytes`,
    );
    assert.equal((await sender.send(await attemptTo(url))).kind, 'acknowledged');
    assert.equal(tcp.accepted, 1, 'the refusal kept the connection');
    assert.equal((await (await natsAdmin()).jsm.streams.info(stream)).state.messages, 1, 'only the second was stored');
  });

  it('a refused login is rejected, the password is in no error text or log line, and the right one is acknowledged', async () => {
    const server = await privateNatsServer('hooks', 'Right-Pa55');
    const password = 'Wrong-Pa55word-that-must-not-leak';
    const wrong = await sender.send(await attemptTo(`nats://hooks:${password}@127.0.0.1:${server.port}/a.b`));
    assert.equal(wrong.kind, 'rejected', JSON.stringify(wrong));
    assert.match(wrong.kind === 'rejected' ? wrong.error : '', /authorization/i);
    assert.ok(!JSON.stringify(wrong).includes(password));
    assert.ok(!JSON.stringify(lines).includes(password));
    const nc = await (await import('@nats-io/transport-node')).connect({
      servers: `127.0.0.1:${server.port}`,
      user: 'hooks',
      pass: 'Right-Pa55',
    });
    try {
      const jsm = await (await import('@nats-io/jetstream')).jetstreamManager(nc);
      await jsm.streams.add({ name: 'PRIVATE', subjects: ['a.b'] });
      const right = await sender.send(await attemptTo(`nats://hooks:Right-Pa55@127.0.0.1:${server.port}/a.b`));
      assert.equal(right.kind, 'acknowledged', JSON.stringify(right));
    } finally {
      await nc.close();
      await server.stop();
    }
  });

  it('a closed port is a connection error', async () => {
    const port = await freePort();
    const result = await sender.send(await attemptTo(`nats://u:secret-pw@127.0.0.1:${port}/a.b`));
    assert.equal(result.kind, 'connection-error', JSON.stringify(result));
    assert.match(result.kind === 'connection-error' ? result.error : '', /refused/);
  });

  it('connections are pooled: many deliveries share one, and it is closed when idle', async () => {
    const { stream, subject } = await streamAndSubject();
    const p = await proxy();
    const idle = createSender({ log, idleMs: 300 });
    try {
      await sharesOneConnectionClosedWhenIdle(idle, p, `nats://${new URL(p.url).host}/${subject}`);
      assert.equal((await (await natsAdmin()).jsm.streams.info(stream)).state.messages, 21);
    } finally {
      await idle.close();
    }
  });

  it('a server that stops answering is a timeout within the bound; once it answers again the next attempt is acknowledged', async () => {
    const { subject } = await streamAndSubject();
    const p = await proxy();
    await timesOutThenRecovers(sender, p, `nats://${new URL(p.url).host}/${subject}`);
  });

  it('a connection the server drops (a restart) costs a failed attempt, then a new connection is made', async () => {
    const { subject } = await streamAndSubject();
    const p = await proxy();
    await reconnectsAfterADrop(sender, p, `nats://${new URL(p.url).host}/${subject}`);
  });

  it('a server that never finishes its greeting, or never stops it, has its connection cut: the attempt ends and the socket closes', async () => {
    const closed: string[] = [];
    const endless = createServer((socket) => {
      socket.on('error', () => {});
      socket.on('close', () => closed.push('endless'));
      socket.write('INFO ');
      const chunk = Buffer.alloc(65_536, 0x61); // no line end, ever
      const pump = () => {
        while (socket.writable && socket.write(chunk)) {
          // as fast as the socket takes it
        }
        if (socket.writable) socket.once('drain', pump);
      };
      pump();
    });
    const silent = createServer((socket) => {
      socket.on('error', () => {});
      socket.on('close', () => closed.push('silent'));
    });
    const portOf = async (server: Server) => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return (server.address() as AddressInfo).port;
    };
    try {
      const flooded = await sender.send(await attemptTo(`nats://127.0.0.1:${await portOf(endless)}/a.b`));
      assert.equal(flooded.kind, 'connection-error', JSON.stringify(flooded));
      assert.match(
        flooded.kind === 'connection-error' ? flooded.error : '',
        new RegExp(`sent over ${MAX_GREETING_BYTES} bytes before connecting`),
      );
      const quiet = await sender.send(
        await attemptTo(`nats://127.0.0.1:${await portOf(silent)}/a.b`, { timeoutMs: 500 }),
      );
      assert.equal(quiet.kind, 'timeout', JSON.stringify(quiet));
      await eventually(() => closed.length === 2 || undefined, 5_000, 'both sockets closed by the sender');
    } finally {
      endless.close();
      silent.close();
    }
  });

  it('a sender whose server stopped answering still closes, within a few seconds', async () => {
    const { subject } = await streamAndSubject();
    const p = await proxy();
    await closesWhileStalled(createSender({ log }), p, `nats://${new URL(p.url).host}/${subject}`);
  });

  it('tls connects to the checked address and verifies the certificate for the URL host name (servername)', async () => {
    const server = await privateNatsServer('hooks', 'Right-Pa55', { key: TLS_KEY, cert: TLS_CERT });
    const trusting = createSender({ log, ca: TLS_CERT });
    try {
      const url = `tls://hooks:Right-Pa55@hooks.example.test:${server.port}/nobody.here`;
      const lookup = async () => [{ address: '127.0.0.1', family: 4 }];
      // connected, logged in and published over TLS: the server answers that no stream captures the subject
      const result = await trusting.send(await attemptTo(url, { lookup }));
      assert.equal(result.kind, 'rejected', JSON.stringify(result));
      assert.match(result.kind === 'rejected' ? result.error : '', /no stream captures subject nobody\.here/);
      const untrusted = await sender.send(await attemptTo(url, { lookup }));
      assert.equal(untrusted.kind, 'connection-error', JSON.stringify(untrusted));
      assert.match(untrusted.kind === 'connection-error' ? untrusted.error : '', /self.signed|certificate/i);
    } finally {
      await trusting.close();
      await server.stop();
    }
  });
});
