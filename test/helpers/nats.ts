/**
 * NATS JetStream as the tests use it: the local server (127.0.0.1:4222), streams of each test's
 * own (deleted when the file's tests end) read through the JetStream manager, and a private
 * `nats-server` on a free port for a test that needs one configured otherwise (a password).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { jetstream, jetstreamManager, type JetStreamManager, type StoredMsg } from '@nats-io/jetstream';
import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { eventually } from './poll.ts';
import { freePort } from './ports.ts';

export const NATS = { host: '127.0.0.1', port: 4222 };

export interface NatsAdmin {
  jsm: JetStreamManager;
  /** A stream named `name` capturing `subject` (deleted at the end). */
  stream(name: string, subject: string): Promise<void>;
  /** A JetStream publish of `body` with `headers` to `subject` (no message id: never de-duplicated). */
  publish(subject: string, body: string, headers: Record<string, string>): Promise<void>;
  /** The first `count` messages of `stream`, waiting for them (deadline `timeoutMs`). */
  take(stream: string, count?: number, timeoutMs?: number): Promise<StoredMsg[]>;
}

let nc: NatsConnection | undefined;
const streams: string[] = [];
after(async () => {
  if (nc === undefined) return;
  const jsm = await jetstreamManager(nc);
  for (const name of streams) await jsm.streams.delete(name).catch(() => undefined);
  await nc.close();
  nc = undefined;
});

/** The admin connection of this test file to the local server (opened on first use). */
export async function natsAdmin(): Promise<NatsAdmin> {
  nc ??= await connect({ servers: `${NATS.host}:${NATS.port}` });
  const jsm = await jetstreamManager(nc);
  return {
    jsm,
    async stream(name, subject) {
      await jsm.streams.add({ name, subjects: [subject] });
      streams.push(name);
    },
    async publish(subject, body, values) {
      const h = natsHeaders();
      for (const [name, value] of Object.entries(values)) h.set(name, value);
      await jetstream(nc as NatsConnection).publish(subject, body, { headers: h });
    },
    async take(stream, count = 1, timeoutMs = 10_000) {
      await eventually(
        async () => (await jsm.streams.info(stream)).state.messages >= count,
        timeoutMs,
        `${count} message(s) in stream ${stream}`,
      );
      const messages: StoredMsg[] = [];
      for (let seq = 1; seq <= count; seq++) {
        const message = await jsm.streams.getMessage(stream, { seq });
        if (message === null) throw new Error(`stream ${stream} has no message ${seq}`);
        messages.push(message);
      }
      return messages;
    },
  };
}

/**
 * A private nats-server with JetStream, requiring `user`/`pass` (and TLS with `tls`'s key and
 * certificate when given); stopped when the file's tests end.
 */
export async function privateNatsServer(
  user: string,
  pass: string,
  tls?: { key: string; cert: string },
): Promise<{ port: number; stop(): Promise<void> }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'nats-test-'));
  const tlsArgs: string[] = [];
  if (tls !== undefined) {
    writeFileSync(join(dir, 'key.pem'), tls.key);
    writeFileSync(join(dir, 'cert.pem'), tls.cert);
    tlsArgs.push('--tls', '--tlscert', join(dir, 'cert.pem'), '--tlskey', join(dir, 'key.pem'));
  }
  const child: ChildProcess = spawn(
    'nats-server',
    ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(dir, 'js'), '--user', user, '--pass', pass, ...tlsArgs],
    { stdio: 'ignore' },
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  after(stop);
  await eventually(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = tcpConnect(port, '127.0.0.1', () => {
          socket.destroy();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
      }),
    10_000,
    `nats-server listening on ${port}`,
  );
  return { port, stop };
}
