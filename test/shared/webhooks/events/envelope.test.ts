import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { envelopeBody, payloadText } from '../../../../shared/webhooks/events/envelope.ts';
import { appError } from '../fixtures.ts';

const at = new Date('2026-05-01T12:34:56.789+02:00');

describe('event envelope', () => {
  it('is JSON.stringify of {data, id, timestamp, type} in that key order, timestamp in ISO 8601 UTC', () => {
    for (const data of [
      { b: 1, a: [1, 'x', null], '1': true },
      [1, 2],
      'text',
      3.5,
      null,
      { nested: { ü: '✓', quote: '"\\' } },
    ]) {
      const body = envelopeBody({
        data: payloadText(data, 1e6),
        id: 'msg_01ABC',
        timestamp: at,
        type: 'order.created',
      });
      assert.equal(
        body,
        JSON.stringify({ data, id: 'msg_01ABC', timestamp: '2026-05-01T10:34:56.789Z', type: 'order.created' }),
      );
      assert.deepEqual(Object.keys(JSON.parse(body)), ['data', 'id', 'timestamp', 'type']);
    }
  });

  it('applies toJSON like JSON.stringify (a Date in the payload becomes its ISO text)', () => {
    const body = envelopeBody({ data: payloadText({ when: at }, 1e6), id: 'msg_1', timestamp: at, type: 't' });
    assert.equal(JSON.parse(body).data.when, '2026-05-01T10:34:56.789Z');
  });

  it('turns an undefined payload into null', () => {
    assert.equal(payloadText(undefined, 100).text, 'null');
  });

  it('refuses what JSON cannot carry with APP_WEBHOOK_PAYLOAD_INVALID', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.me = cyclic;
    for (const payload of [cyclic, 1n, () => 0, Symbol('s'), { s: '\u0000' }]) {
      assert.throws(() => payloadText(payload, 1e6), appError('APP_WEBHOOK_PAYLOAD_INVALID', 422));
    }
  });

  it('refuses a number that is not finite, which JSON.stringify would send as null, naming where it is', () => {
    for (const [payload, path, value] of [
      [JSON.parse('{"big":1e400}'), 'data.big', 'Infinity'],
      [{ deep: { list: [1, JSON.parse('-1e400')] } }, 'data.deep.list.1', '-Infinity'],
      [{ ratio: Number.NaN, kept: null }, 'data.ratio', 'NaN'],
      [Number.POSITIVE_INFINITY, 'data', 'Infinity'],
    ] as const) {
      assert.throws(
        () => payloadText(payload, 1e6),
        appError('APP_WEBHOOK_PAYLOAD_INVALID', 422, (e) => {
          assert.equal((e.data as { field: string }).field, 'data');
          assert.match(
            String((e.data as { reason: string }).reason),
            new RegExp(`^holds ${value} at ${path.replaceAll('.', '\\.')},`),
          );
        }),
      );
    }
    // null itself, -0 and the largest doubles are ordinary JSON
    assert.equal(
      payloadText({ a: null, b: -0, c: 1.7976931348623157e308 }, 1e6).text,
      '{"a":null,"b":0,"c":1.7976931348623157e+308}',
    );
  });

  it('tells an escaped NUL from a literal backslash followed by u0000', () => {
    assert.throws(() => payloadText('a\u0000', 100), appError('APP_WEBHOOK_PAYLOAD_INVALID'));
    assert.throws(() => payloadText('\\\u0000', 100), appError('APP_WEBHOOK_PAYLOAD_INVALID'));
    assert.equal(payloadText('\\u0000', 100).text, '"\\\\u0000"');
  });

  it('measures the size in UTF-8 bytes and refuses more than the limit with 413 APP_WEBHOOK_PAYLOAD_TOO_LARGE', () => {
    assert.equal(payloadText('é', 100).bytes, 4);
    assert.throws(
      () => payloadText('x'.repeat(99), 100),
      appError('APP_WEBHOOK_PAYLOAD_TOO_LARGE', 413, (e) => {
        assert.deepEqual(e.data, { field: 'data', bytes: 101, limit: 100 });
      }),
    );
  });
});
