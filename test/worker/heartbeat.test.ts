/**
 * The heartbeat's stop (worker/heartbeat.ts) waits for the first beat of a pool just added: a
 * short run (`app jobs --once`) stops right after its pool starts, and a beat left in flight
 * failed on the closed connection ("first heartbeat failed") or wrote its row after the stop.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startHeartbeat, type Liveness } from '../../worker/heartbeat.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { captureLogger } from '../shared/webhooks/fixtures.ts';
import { harness } from './helpers.ts';

const db = await createTestDatabase();

/** A liveness lock that takes `ms` to be held, as one whose connection is still being made. */
function slowLiveness(ms: number): Liveness {
  return {
    hold: () => new Promise((resolve) => setTimeout(() => resolve(null), ms)),
    close: async () => {},
    reopen: async () => {},
  };
}

describe('the heartbeat stopped right after a pool started', () => {
  it("waits for that pool's first beat, then forgets its row: nothing written after the stop, nothing logged", async () => {
    const h = harness(db);
    const capture = captureLogger(h.config);
    const pool = `heartbeat-test-${process.pid}`;
    const heartbeat = startHeartbeat({ config: h.config, sql: h.sql, log: capture.log, liveness: slowLiveness(300) });
    heartbeat.add(pool);
    await heartbeat.stop({ forget: true });
    // past the moment the beat would have landed, had the stop not waited for it
    await new Promise((resolve) => setTimeout(resolve, 500));
    const rows = await h.sql`select 1 from app_worker_heartbeats where pool_id = ${pool}`;
    assert.equal(rows.length, 0, 'no heartbeat row of a stopped pool');
    assert.deepEqual(
      capture.lines().filter((line) => (line.level as number) >= 40),
      [],
    );
  });
});
