import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createConnectionPool } from '../../../worker/destinations/pool.ts';

interface Fake {
  id: number;
  closed: boolean;
}

function counting(idleMs = 60_000) {
  let made = 0;
  const closed: number[] = [];
  const pool = createConnectionPool<Fake>({
    idleMs,
    closeConnection: (connection) => {
      connection.closed = true;
      closed.push(connection.id);
    },
  });
  const open = async (): Promise<Fake> => ({ id: ++made, closed: false });
  return { pool, open, closed, made: () => made };
}

describe('createConnectionPool', () => {
  it('shares one opening between concurrent first uses and reuses the connection', async () => {
    const { pool, open, made } = counting();
    const [a, b] = await Promise.all([pool.get('k', open), pool.get('k', open)]);
    assert.equal(a, b);
    assert.equal(await pool.get('k', open), a);
    assert.equal(made(), 1);
    await pool.close();
  });

  it('keeps one connection per key', async () => {
    const { pool, open } = counting();
    assert.notEqual(await pool.get('a', open), await pool.get('b', open));
    assert.equal(pool.size, 2);
    await pool.close();
  });

  it('opens a new connection after a broken one is discarded, and closes the broken one', async () => {
    const { pool, open, closed } = counting();
    const first = await pool.get('k', open);
    pool.discard('k', first);
    assert.deepEqual(closed, [1]);
    const second = await pool.get('k', open);
    assert.notEqual(second, first);
    await pool.close();
  });

  it('does not drop a newer connection when an older one is discarded late', async () => {
    const { pool, open } = counting();
    const first = await pool.get('k', open);
    pool.discard('k', first);
    const second = await pool.get('k', open);
    pool.discard('k', first);
    assert.equal(await pool.get('k', open), second);
    await pool.close();
  });

  it('does not keep a failed opening', async () => {
    const { pool, open } = counting();
    await assert.rejects(pool.get('k', () => Promise.reject(new Error('ECONNREFUSED'))));
    assert.equal(pool.size, 0);
    assert.equal((await pool.get('k', open)).id, 1);
    await pool.close();
  });

  it('closes a connection left unused for idleMs', async () => {
    const { pool, open } = counting(20);
    const connection = await pool.get('k', open);
    const deadline = Date.now() + 5_000;
    while (!connection.closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(connection.closed, true);
    assert.equal(pool.size, 0);
  });

  it('closes every connection on close', async () => {
    const { pool, open, closed } = counting();
    await pool.get('a', open);
    await pool.get('b', open);
    await pool.close();
    assert.deepEqual(closed.sort(), [1, 2]);
    assert.equal(pool.size, 0);
  });
});
