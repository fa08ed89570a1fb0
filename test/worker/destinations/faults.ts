/**
 * The connection rules every broker sender keeps, checked the same way for each: through a TCP
 * proxy in front of the broker (test/helpers/tcp-proxy.ts), where the test can count
 * connections, stall the broker or drop its connections. `url` names the broker through the
 * proxy and a destination that acknowledges.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import type { BrokerSender } from '../../../worker/destinations/types.ts';
import { eventually } from '../../helpers/poll.ts';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.ts';
import { attemptTo } from './attempts.ts';

/** A TCP proxy to the broker at `target` (a URL naming its host and port), closed when the file's tests end. */
export async function proxyTo(target: string): Promise<TcpProxy> {
  const proxy = await startTcpProxy(target);
  after(() => proxy.close());
  return proxy;
}

/** 20 concurrent deliveries and one more share one connection, closed once idle (`sender` made with a short idleMs). */
export async function sharesOneConnectionClosedWhenIdle(sender: BrokerSender, proxy: TcpProxy, url: string) {
  const attempts = await Promise.all(Array.from({ length: 20 }, (_, n) => attemptTo(url, { n })));
  const results = await Promise.all(attempts.map((attempt) => sender.send(attempt)));
  assert.deepEqual(new Set(results.map((r) => r.kind)), new Set(['acknowledged']));
  assert.equal((await sender.send(await attemptTo(url))).kind, 'acknowledged');
  assert.equal(proxy.accepted, 1, 'one connection for every delivery');
  await eventually(() => proxy.open === 0, 10_000, 'the idle connection closed');
}

/**
 * A broker that stops answering makes a `timeout` within the bound, on the open connection and
 * on a new one; once it answers again an attempt is acknowledged.
 */
export async function timesOutThenRecovers(sender: BrokerSender, proxy: TcpProxy, url: string) {
  assert.equal((await sender.send(await attemptTo(url))).kind, 'acknowledged');
  proxy.stall();
  const started = performance.now();
  const stalled = await sender.send(await attemptTo(url, { timeoutMs: 500 }));
  assert.equal(stalled.kind, 'timeout', JSON.stringify(stalled));
  assert.ok(performance.now() - started < 3_000, 'bounded by the timeout');
  // a new connection that never completes its handshake is bounded too
  const opening = await sender.send(await attemptTo(url, { timeoutMs: 500 }));
  assert.ok(['timeout', 'connection-error'].includes(opening.kind), JSON.stringify(opening));
  proxy.flow();
  const back = await eventually(
    async () => {
      const result = await sender.send(await attemptTo(url, { timeoutMs: 2_000 }));
      return result.kind === 'acknowledged' ? result : undefined;
    },
    15_000,
    'an acknowledged attempt after the broker answers again',
  );
  assert.equal(back.kind, 'acknowledged');
}

/** Connections dropped by the broker (a restart) cost a failed attempt; then a new connection is made. */
export async function reconnectsAfterADrop(sender: BrokerSender, proxy: TcpProxy, url: string) {
  assert.equal((await sender.send(await attemptTo(url))).kind, 'acknowledged');
  await proxy.cut();
  const down = await sender.send(await attemptTo(url, { timeoutMs: 1_000 }));
  assert.ok(['connection-error', 'timeout'].includes(down.kind), JSON.stringify(down));
  await proxy.restore();
  assert.equal((await sender.send(await attemptTo(url))).kind, 'acknowledged');
  assert.equal(proxy.accepted, 2);
}

/** A sender whose broker stopped answering still closes within a few seconds, its sockets gone (a worker's shutdown is not held). */
export async function closesWhileStalled(sender: BrokerSender, proxy: TcpProxy, url: string) {
  assert.equal(proxy.accepted, 0);
  const first = await sender.send(await attemptTo(url));
  assert.equal(first.kind, 'acknowledged', JSON.stringify(first));
  proxy.stall();
  const started = performance.now();
  await sender.close();
  assert.ok(performance.now() - started < 5_000, 'closed within the bound');
  await eventually(() => proxy.open === 0, 5_000, 'the stalled connection dropped');
}
