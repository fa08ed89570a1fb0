/**
 * What a hostile receiver writes into the records: the answer's excerpt and the error naming its
 * redirect are shown by every face, `app jobs:show` on an operator's terminal included, so they
 * are recorded without control characters (an escape sequence there would set the terminal's
 * title, clear it, or rewrite the lines above), and with the tabs and line breaks of an ordinary
 * answer kept. The operational events that carry such an error (`app.delivery.dead`,
 * `app.endpoint.failing`) keep it the same way.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from './delivery/receiver.ts';
import { attemptRows, deliveryRow, endpoint, harness, runOnce, send, type Harness } from './helpers.ts';

const db = await createTestDatabase();
/** Retries far away, so one run makes exactly one attempt. */
const h: Harness = harness(db, { webhooks: { backoff: { base: '1h', factor: 3, max: '6h', jitter: 0.2 } } });

/** C0 controls but tab, LF and the CR of a CR LF; DEL; C1 controls. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/;

const receivers: Receiver[] = [];
after(async () => {
  for (const receiver of receivers) await receiver.close();
});

/** Registers an endpoint at a receiver answering with `handler`, emits to it once and runs the worker once. */
async function deliveredOnceTo(handler: Parameters<typeof startReceiver>[0]): Promise<string> {
  const receiver = await startReceiver(handler);
  receivers.push(receiver);
  const ep = await endpoint(h, `${receiver.origin}/hook`);
  const [id] = await send(h, ep);
  await runOnce(h);
  return id;
}

describe('a hostile answer in the records', () => {
  it('an excerpt with escape sequences, BEL, a C1 CSI, a lone CR and NUL (which PostgreSQL text refuses) is recorded with U+FFFD for each; tabs, LF and CR LF stay', async () => {
    const id = await deliveredOnceTo((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('\u001b]0;owned\u0007\u001b[2J\u001b[31mred\u001b[0m\u009b31m|a\tb\r\nc\nd\rfake status: done\u0000');
    });
    const [attempt] = await attemptRows(h, id);
    assert.equal(attempt.status, 500);
    assert.ok(attempt.excerpt !== null && !CONTROL.test(attempt.excerpt), JSON.stringify(attempt.excerpt));
    assert.equal(
      attempt.excerpt,
      '\uFFFD]0;owned\uFFFD\uFFFD[2J\uFFFD[31mred\uFFFD[0m\uFFFD31m|a\tb\r\nc\nd\uFFFDfake status: done\uFFFD',
    );
  });

  it('a Location holding C1 controls (latin-1 bytes 0x80-0x9f) is named in the error without them', async () => {
    const id = await deliveredOnceTo((_req, res) => {
      // header values are written as latin-1: each of these characters is one byte on the wire
      res.writeHead(302, { location: '/next\u009b2J\u0085\u009d0;owned\u009c' });
      res.end();
    });
    const [attempt] = await attemptRows(h, id);
    const delivery = (await deliveryRow(h, id))!;
    assert.equal(delivery.status, 'dead');
    assert.match(attempt.error ?? '', /302.*\/next/);
    for (const error of [attempt.error, delivery.last_error])
      assert.ok(error !== null && !CONTROL.test(error), JSON.stringify(error));
    assert.match(delivery.last_error ?? '', /\/next\uFFFD2J\uFFFD\uFFFD0;owned\uFFFD/);
  });

  it('app.delivery.dead names a Location holding C1 controls without them, as the records do', async () => {
    const operator = await startReceiver((_req, res) => res.end());
    receivers.push(operator);
    await endpoint(h, `${operator.origin}/ops`, { owner: null, events: ['app.delivery.dead'] });
    const id = await deliveredOnceTo((_req, res) => {
      res.writeHead(302, { location: '/moved\u009b2J\u009d0;owned\u009c' });
      res.end();
    });
    const events = await h.sql<{ data: { deliveryId: string; lastError: string | null } }[]>`
      select payload as data from app_events where type = 'app.delivery.dead' and payload->>'deliveryId' = ${id}`;
    assert.ok(events.length > 0, 'app.delivery.dead was emitted');
    for (const { data } of events) {
      assert.match(data.lastError ?? '', /302.*\/moved/);
      assert.ok(!CONTROL.test(data.lastError ?? ''), JSON.stringify(data.lastError));
    }
  });
});
