/**
 * One trace per event, as deployed: the web and worker processes (`node api/main.ts`,
 * `node worker/main.ts`) configured by the standard `OTEL_*` variables alone, exporting to an OTLP
 * receiver in this process (the web process over `http/json`, the worker over `http/protobuf`),
 * with real receivers on the loopback. An emit to two endpoints, one failing once, is one trace:
 * the request's server span, its `emit` span and three attempt spans, each receiver told the
 * attempt's span in its `traceparent`; a client's own `traceparent` on the emit is the parent.
 * (A URL with credentials is refused at registration; the attribute's userinfo stripping, and
 * the path kept with `telemetry.recordUrlPath`, are checked on their own in attempt-span.test.ts.)
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import {
  operatorToken,
  startWebProcess,
  startWorkerProcess,
  type DeployedProcess,
  type DeployedWeb,
} from '../../helpers/deployment.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../helpers/otlp-receiver.ts';
import { eventually } from '../../helpers/poll.ts';
import { call, receiver, type Receiver } from '../../api/webhooks-api/helpers.ts';

const APP_SECRET = 'telemetry test application secret of at least 32 characters';
const PAYLOAD_MARK = 'payload-marker-7f3a';
const HEADER_SECRET = 'header-secret-91c2';
const QUERY_SECRET = 'query-secret-5d1e';
const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

let db: TestDatabase;
let otlp: OtlpReceiver;
let web: DeployedWeb;
let worker: DeployedProcess;
let token: string;
let steady: Receiver;
let flaky: Receiver;
const secrets: string[] = [];

/** The spans of trace `traceId` once `count` of them have arrived. */
const traceOf = (traceId: string, count: number) =>
  eventually(
    () => {
      const spans = otlp.spans.filter((span) => span.traceId === traceId);
      return spans.length >= count ? spans : undefined;
    },
    30_000,
    `${count} spans of trace ${traceId}`,
  );

const spanNamed = (spans: ReceivedSpan[], name: string) => {
  const found = spans.filter((span) => span.name === name);
  assert.equal(found.length, 1, `one span ${name}: ${JSON.stringify(spans.map((span) => span.name))}`);
  return found[0];
};

const emit = (headers: Record<string, string> = {}) =>
  call('POST', `${web.base}/api/v1/events`, {
    token,
    headers,
    body: { type: 'order.created', data: { note: PAYLOAD_MARK }, owner: 'acme' },
  });

describe('one trace per event, from the emit to every attempt', () => {
  before(async () => {
    db = await createTestDatabase();
    otlp = await startOtlpReceiver();
    const traced = {
      DATABASE_URL: db.url,
      APP_SECRET,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_SERVICE_NAME: 'hooks-under-test',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    };
    web = await startWebProcess({ ...traced, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    worker = await startWorkerProcess({
      ...traced,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      APP_WEBHOOKS__BACKOFF__BASE: '100ms',
      APP_WEBHOOKS__BACKOFF__JITTER: '0',
    });
    token = await operatorToken(db.url, APP_SECRET);
    steady = await receiver('/steady');
    flaky = await receiver('/flaky');
    for (const hook of [steady, flaky]) {
      const url = `${hook.url}?token=${QUERY_SECRET}`; // a query may carry a credential: never exported
      const created = await call('POST', `${web.base}/api/v1/webhooks`, {
        token,
        body: { url, events: ['order.*'], owner: 'acme', headers: { 'X-Api-Key': HEADER_SECRET } },
      });
      assert.equal(created.status, 201, created.text);
      secrets.push(created.body.secret);
    }
  });

  it('an emit to two endpoints, one failing once, is one trace: server span, emit span, three attempts', async () => {
    flaky.answer(500);
    void flaky.next().then(() => flaky.answer(200)); // the first attempt fails, the retry succeeds
    const emitted = await emit();
    assert.equal(emitted.status, 202, emitted.text);
    assert.equal(emitted.body.deliveryCount, 2);
    await eventually(() => flaky.requests.length >= 2 && steady.requests.length >= 1, 30_000, 'the three attempts');

    const [first] = steady.requests;
    const traceId = String(first.headers.traceparent).split('-')[1];
    const spans = await traceOf(traceId, 5);
    assert.equal(spans.length, 5, JSON.stringify(spans.map((span) => span.name)));

    const server = spanNamed(spans, 'POST /api/v1/events');
    assert.equal(server.kind, SERVER);
    assert.equal(server.parentSpanId, '', 'the server span is the root');
    assert.equal(server.attributes['http.response.status_code'], 202);
    assert.equal(server.protocol, 'http/json');

    const emitSpan = spanNamed(spans, 'emit');
    assert.equal(emitSpan.parentSpanId, server.spanId);
    assert.equal(emitSpan.attributes['app.event.type'], 'order.created');
    assert.equal(emitSpan.attributes['app.event.owner'], 'acme');
    assert.equal(emitSpan.attributes['app.event.fanout'], 2);
    assert.equal(emitSpan.resource['service.name'], 'hooks-under-test');

    const attempts = spans.filter((span) => span.name === 'attempt');
    assert.equal(attempts.length, 3);
    for (const attempt of attempts) {
      assert.equal(attempt.parentSpanId, emitSpan.spanId, 'every attempt, the retry too, is a child of the emit');
      assert.equal(attempt.kind, CLIENT);
      assert.equal(attempt.protocol, 'http/protobuf');
      assert.match(String(attempt.attributes['app.endpoint.id']), /^ep_/);
      assert.equal(attempt.attributes['network.peer.address'], '127.0.0.1', 'the address dialled');
      assert.equal(typeof attempt.attributes['app.delivery.duration_ms'], 'number');
      // the receiver's path is left out by default (telemetry.recordUrlPath): it may be its secret
      assert.match(String(attempt.attributes['url.full']), /^http:\/\/127\.0\.0\.1:\d+\/REDACTED$/);
    }
    const flakyAttempts = attempts
      .filter((span) => span.attributes['server.port'] === Number(new URL(flaky.url).port))
      .sort((a, b) => Number(a.attributes['app.delivery.attempt']) - Number(b.attributes['app.delivery.attempt']));
    assert.deepEqual(
      flakyAttempts.map((span) => [
        span.attributes['app.delivery.attempt'],
        span.attributes['app.delivery.outcome'],
        span.attributes['http.response.status_code'],
        span.status.code,
      ]),
      [
        [1, 'retry', 500, ERROR],
        [2, 'done', 200, 0],
      ],
    );
    assert.equal(flakyAttempts[0].attributes['error.type'], '500');

    // each receiver was told the span of the attempt that reached it
    const told = [...steady.requests, ...flaky.requests].map((request) => String(request.headers.traceparent));
    assert.deepEqual(told.map((value) => value.split('-')[2]).sort(), attempts.map((span) => span.spanId).sort());
    for (const value of told) assert.match(value, new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    // the worker's line about the failed attempt carries the attempt's trace and span
    const line = await worker.spawned.waitFor(
      /\{[^\n]*"msg":"delivery attempt failed; retry scheduled"[^\n]*\}/,
      10_000,
    );
    const logged = JSON.parse(line[0]) as { trace_id?: string; span_id?: string };
    assert.deepEqual([logged.trace_id, logged.span_id], [traceId, flakyAttempts[0].spanId]);
  });

  it("no payload, secret, header value, URL credential or receiver's path is in any span attribute", async () => {
    const before = steady.requests.length;
    const emitted = await emit();
    assert.equal(emitted.status, 202, emitted.text);
    const request = await eventually(() => steady.requests[before], 30_000, 'the delivery');
    await traceOf(String(request.headers.traceparent).split('-')[1], 4); // server, emit, an attempt per endpoint
    const exported = JSON.stringify(otlp.spans.map((span) => [span.attributes, span.resource]));
    for (const secret of [
      PAYLOAD_MARK,
      HEADER_SECRET,
      QUERY_SECRET,
      '/steady',
      '/flaky',
      token,
      APP_SECRET,
      ...secrets,
    ]) {
      assert.ok(!exported.includes(secret), `${secret} is exported`);
    }
  });

  it("a client's traceparent on the emit becomes the parent, and the receiver's traceparent names its trace", async () => {
    const clientTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const clientSpan = '00f067aa0ba902b7';
    const before = steady.requests.length;
    const emitted = await emit({ traceparent: `00-${clientTrace}-${clientSpan}-01` });
    assert.equal(emitted.status, 202, emitted.text);
    const request = await eventually(() => steady.requests[before], 30_000, 'the delivery');
    assert.match(String(request.headers.traceparent), new RegExp(`^00-${clientTrace}-[0-9a-f]{16}-01$`));

    const spans = await traceOf(clientTrace, 4); // server, emit, one attempt per endpoint
    const server = spanNamed(spans, 'POST /api/v1/events');
    assert.equal(server.parentSpanId, clientSpan);
  });
});
