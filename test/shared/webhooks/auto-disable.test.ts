/**
 * Auto-disable on a controlled clock: attempts are written with the times the
 * test chooses and the sweep is asked at a chosen `now`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { enableEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { disableFailingEndpoints } from '../../../shared/webhooks/endpoints/auto-disable.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { endpoint, harness, send } from '../../worker/helpers.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';

const db = await createTestDatabase();
const h = harness(db);
const deps = { config: h.config, sql: h.sql, log: h.log };
const DAY = 86_400_000;
// the clock of the sweep; attempts are written before it (an enable stamps the database's own time, after them)
const NOW = Math.floor(Date.now() / 1000) * 1000;

/** An endpoint with one delivery carrying `outcomes` as attempts, one every `spacing` ms ending at NOW. */
async function withAttempts(outcomes: ('done' | 'retry')[], spanMs: number): Promise<string> {
  const made = await endpoint(h, 'http://127.0.0.1:9/hook');
  const [delivery] = await send(h, made);
  const step = outcomes.length > 1 ? spanMs / (outcomes.length - 1) : 0;
  for (const [index, outcome] of outcomes.entries()) {
    const at = new Date(NOW - spanMs + index * step);
    await db.sql`insert into app_webhook_attempts (delivery_id, attempt, started_at, duration_ms, status, outcome) values (${delivery}, ${index + 1}, ${at}, 5, ${outcome === 'done' ? 200 : 500}, ${outcome})`;
  }
  return made.id;
}

const enabled = async (id: string) =>
  (
    await db.sql<
      { disabled_at: Date | null; disabled_reason: string | null }[]
    >`select disabled_at, disabled_reason from app_webhooks where id = ${id}`
  )[0];

describe('auto-disable', () => {
  it('every attempt failed for 5 days and at least 20 times: disabled with the reason kept; shorter, fewer, or a recent success: left alone', async () => {
    const failing = await withAttempts(Array(25).fill('retry'), 6 * DAY);
    const tooRecent = await withAttempts(Array(25).fill('retry'), 4 * DAY);
    const tooFew = await withAttempts(Array(10).fill('retry'), 6 * DAY);
    const recovered = await withAttempts([...Array(24).fill('retry'), 'done'], 6 * DAY);
    const disabled = await disableFailingEndpoints(deps, NOW);
    assert.deepEqual(
      disabled.map((row) => row.id),
      [failing],
    );
    assert.equal(disabled[0].failures, 25);
    const row = await enabled(failing);
    assert.ok(row.disabled_at);
    const since = new Date(NOW - 6 * DAY).toISOString().replace(/\.\d{3}Z$/, 'Z');
    assert.equal(
      row.disabled_reason,
      `disabled automatically: every delivery attempt failed since ${since} (25 attempts; webhooks.disableAfter)`,
    );
    for (const id of [tooRecent, tooFew, recovered]) assert.equal((await enabled(id)).disabled_at, null, id);
    assert.deepEqual(await disableFailingEndpoints(deps, NOW), [], 'a second sweep changes nothing');
  });

  it('tells the operator endpoint which endpoint, its url and its tenant, and why (app.endpoint.disabled)', async () => {
    await endpoint(h, 'http://127.0.0.1:9/alerts', { owner: null, events: ['app.*'] });
    const failing = await withAttempts(Array(25).fill('retry'), 6 * DAY);
    const [disabled] = await disableFailingEndpoints(deps, NOW);
    assert.equal(disabled.id, failing);
    const told = await db.sql<{ payload: Record<string, unknown> }[]>`
      select payload from app_events where type = 'app.endpoint.disabled' and owner is null and payload->>'endpointId' = ${failing}`;
    assert.equal(told.length, 1, 'one event for the operator');
    assert.deepEqual(told[0].payload, {
      endpointId: failing,
      url: 'http://127.0.0.1:9/hook',
      reason: disabled.reason,
      owner: disabled.owner,
    });
  });

  it('enabled again by an operator, the old failures no longer count', async () => {
    const failing = await withAttempts(Array(25).fill('retry'), 6 * DAY);
    assert.equal((await disableFailingEndpoints(deps, NOW)).length, 1);
    await enableEndpoint(deps, OPERATOR, failing);
    assert.equal((await enabled(failing)).disabled_at, null);
    const later = await disableFailingEndpoints(deps, NOW + DAY);
    assert.ok(!later.some((row) => row.id === failing), 'the failures before the enable are forgiven');
  });
});
