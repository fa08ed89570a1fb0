/**
 * An endpoint removed while one of its deliveries is in flight: the receiver holds the request
 * until the endpoint is gone, then answers. The worker finds no delivery to record the attempt
 * on and says so as what it is (the endpoint was removed), not as another run having recorded
 * the delivery, which would send an operator looking for a worker running the same job twice.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { OPERATOR } from '../../shared/access/actor.ts';
import { createLogger } from '../../shared/log/logger.ts';
import { removeEndpoint } from '../../shared/webhooks/endpoints/remove.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { eventually } from '../helpers/poll.ts';
import { startReceiver } from './delivery/receiver.ts';
import { endpoint, harness, jobRows, send, worker } from './helpers.ts';

const db = await createTestDatabase();

describe('an endpoint removed while its delivery is in flight', () => {
  it('is logged as removed, not as a delivery recorded by another run; nothing is left queued', async () => {
    const base = harness(db);
    const lines: { level: number; msg: string; delivery?: string }[] = [];
    const log = createLogger(
      { ...base.config, logLevel: 'info' },
      {
        name: 'test-worker',
        destination: new Writable({
          write(chunk, _encoding, done) {
            lines.push(JSON.parse(String(chunk)));
            done();
          },
        }),
      },
    );
    const h = { ...base, log };
    const held: ServerResponse[] = [];
    let arrived!: () => void;
    const reached = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const receiver = await startReceiver((_req, res) => {
      held.push(res);
      arrived();
    });
    after(() => receiver.close());
    const registered = await endpoint(h, `${receiver.origin}/hook`);
    await worker(h);
    const [id] = await send(h, registered);
    await reached;

    await removeEndpoint({ config: h.config, sql: h.sql, log: h.log }, OPERATOR, registered.id);
    for (const res of held) res.end('ok');

    await eventually(async () => (await jobRows(h)).length === 0, 10_000, 'the job to end');
    const about = await eventually(
      () => {
        const found = lines.filter((line) => line.delivery === id && /not recorded|no longer exists/.test(line.msg));
        return found.length > 0 ? found : undefined;
      },
      10_000,
      'the worker to say what became of the attempt',
    );
    assert.deepEqual(
      about.map((line) => [line.level, line.msg]),
      [
        [
          30,
          'delivery no longer exists (its endpoint was removed, or the prune took it): this attempt is not recorded',
        ],
      ],
    );
  });
});
