/**
 * The connection a long-running command holds to learn at once that its database is gone: a
 * network that stops carrying anything (no close ever comes) is found by the heartbeat, and the
 * connection is opened again once the network is back; reconnection waits grow to a bound.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { BACKOFF_MAX_MS, watchBackoff, watchDatabase } from '../../../cli/support/database-watch.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { startTcpProxy } from '../../helpers/tcp-proxy.ts';

const db = await createTestDatabase();

describe('watchDatabase', () => {
  it('finds a network that carries nothing by its heartbeat, says so, and says when the connection is back', async () => {
    const proxy = await startTcpProxy(db.url);
    after(() => proxy.close());
    const events: string[] = [];
    let changed = () => {};
    const next = () => new Promise<void>((resolve) => (changed = resolve));
    const watch = await watchDatabase({
      config: { ...db.config, databaseUrl: proxy.url },
      name: 'app-watch-test',
      reconnectWithinMs: 30_000,
      heartbeatMs: 200,
      onLost: (error) => {
        events.push(`lost: ${error.message}`);
        // the network mended before the first reconnection, which is made at once
        proxy.flow();
        changed();
      },
      onBack: () => {
        events.push('back');
        changed();
      },
    });
    after(() => watch.stop());
    let seen = next();
    proxy.stall();
    await seen;
    assert.deepEqual(events, ['lost: no answer within 200ms']);
    seen = next();
    await seen;
    assert.deepEqual(events, ['lost: no answer within 200ms', 'back']);
    await watch.stop();
  });

  it('waits 250 ms before the second attempt, doubling to at most 5 s', () => {
    assert.deepEqual([0, 1, 2, 3, 4, 5, 10, 50].map(watchBackoff), [
      250,
      500,
      1000,
      2000,
      4000,
      BACKOFF_MAX_MS,
      BACKOFF_MAX_MS,
      BACKOFF_MAX_MS,
    ]);
    assert.equal(BACKOFF_MAX_MS, 5_000);
  });
});
