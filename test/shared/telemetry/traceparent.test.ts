/**
 * The W3C `traceparent` kept with a delivery and sent to receivers
 * (https://www.w3.org/TR/trace-context/#traceparent-header): what is read, what is ignored.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TraceFlags } from '@opentelemetry/api';
import { formatTraceparent, parseTraceparent } from '../../../shared/telemetry/traceparent.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('traceparent', () => {
  it('a valid value is read as a remote span context, and written back the same', () => {
    const context = parseTraceparent(`00-${TRACE}-${SPAN}-01`);
    assert.deepEqual(context, { traceId: TRACE, spanId: SPAN, traceFlags: TraceFlags.SAMPLED, isRemote: true });
    assert.equal(formatTraceparent(context ?? undefined), `00-${TRACE}-${SPAN}-01`);
  });

  const ignored: [string, unknown][] = [
    ['version ff (3.2.2.1: invalid)', `ff-${TRACE}-${SPAN}-01`],
    ['an all-zero trace id (3.2.2.3)', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['an all-zero parent id (3.2.2.4)', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['upper-case hex (3.2.2.3: lowercase only)', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['a short trace id', `00-${TRACE.slice(2)}-${SPAN}-01`],
    ['not a string', 42],
  ];
  for (const [what, value] of ignored) {
    it(`is ignored: ${what}`, () => assert.equal(parseTraceparent(value), null));
  }

  it('an invalid span context (tracing off) has no traceparent', () => {
    assert.equal(formatTraceparent(undefined), null);
    assert.equal(formatTraceparent({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 }), null);
  });
});
