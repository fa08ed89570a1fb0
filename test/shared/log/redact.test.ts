import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import { resolveConfig } from '../../../shared/config/index.ts';
import { createLogger, logContext } from '../../../shared/log/logger.ts';
import { FILTERED, MAX_LOG_DEPTH, createRedactor, redact } from '../../../shared/log/redact.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, destination, text: () => JSON.stringify(lines) };
}

describe('redact', () => {
  it('masks keys containing the default names, case-insensitively, at any depth and in arrays', () => {
    const out = redact({
      password: 'a',
      user: { apiToken: 'b', list: [{ Authorization: 'Bearer c' }] },
      clientSecret: 'd',
      name: 'kept',
    });
    assert.deepEqual(out, {
      password: FILTERED,
      user: { apiToken: FILTERED, list: [{ Authorization: FILTERED }] },
      clientSecret: FILTERED,
      name: 'kept',
    });
  });

  it('masks sensitive query parameters inside URLs and messages', () => {
    assert.equal(redact('GET /hooks?token=abc&page=2'), `GET /hooks?token=${FILTERED}&page=2`);
    assert.deepEqual(redact({ url: 'https://x.test/cb?a=1&client_secret=zzz' }), {
      url: `https://x.test/cb?a=1&client_secret=${FILTERED}`,
    });
  });

  it('replaces the defaults when a list is given, but always masks encryption', () => {
    const custom = createRedactor(['pin']);
    assert.deepEqual(custom({ pin: '1234', password: 'shown', encryptionKey: 'k' }), {
      pin: FILTERED,
      password: 'shown',
      encryptionKey: FILTERED,
    });
  });

  it("masks a url's user name and password inside any string, up to the last @ before its path", () => {
    assert.equal(
      redact('connect to redis://:pw-1@cache:6379 failed; amqp://user:p@ss-2@mq/vh too'),
      'connect to redis://***@cache:6379 failed; amqp://***@mq/vh too',
    );
    assert.deepEqual(redact({ target: 'https://u:pw-3@otlp.example.com/v1/traces' }), {
      target: 'https://***@otlp.example.com/v1/traces',
    });
    assert.equal(redact('mail a@b.example, see https://host/@me'), 'mail a@b.example, see https://host/@me');
  });

  it('masks the data a library hangs on an error (body, args, input, parameters), in its causes too', () => {
    const parse = Object.assign(new SyntaxError('Unexpected token'), { status: 400, body: '{"password":"pw-4" x' });
    const refused = Object.assign(new Error('WRONGPASS'), {
      command: { name: 'hello', args: ['3', 'AUTH', 'someone', 'pw-5'] },
    });
    const url = Object.assign(new TypeError('Invalid URL'), { input: 'nats://x:pw-6@bad host' });
    const query = Object.assign(new Error('failed'), { query: 'select 1', parameters: ['pw-7'] });
    const wrapped = new Error('the request body is not valid', { cause: parse });
    const out = JSON.stringify(redact({ err: [wrapped, refused, url, query], body: { name: 'kept' } }));
    assert.doesNotMatch(out, /pw-4|pw-5|pw-6|pw-7/);
    assert.match(out, /"name":"hello"/, 'what the failure was stays');
    assert.match(out, /"query":"select 1"/);
    assert.match(out, /"body":\{"name":"kept"\}/, 'a body outside an error is walked as any value');
  });

  it('masks the own properties of error objects and survives cycles', () => {
    const error = Object.assign(new Error('boom'), { token: 't0k' });
    const cyclic: Record<string, unknown> = { error };
    cyclic.self = cyclic;
    const out = redact(cyclic) as { error: Record<string, unknown>; self: unknown };
    assert.equal(out.error.message, 'boom');
    assert.equal(out.error.token, FILTERED);
    assert.equal(out.self, '[Circular]');
  });
});

describe('redact, deep values', () => {
  it(`stops at MAX_LOG_DEPTH (${MAX_LOG_DEPTH}) levels: a value nested 100,000 deep is logged, not a stack overflow`, () => {
    let value: unknown = { token: 'secret-deep' };
    for (let i = 0; i < 100_000; i += 1) value = [value];
    const masked = redact({ body: value });
    const text = JSON.stringify(masked);
    assert.match(text, /\[Nested\]/);
    assert.ok(text.length < 500, text);
    assert.deepEqual(
      redact({ a: { b: { token: 'x' } } }),
      { a: { b: { token: FILTERED } } },
      'shallow values are masked as before',
    );
  });
});

describe('logger', () => {
  const config = resolveConfig({ env: { NODE_ENV: 'production', LOG_LEVEL: 'debug' } }).config;

  it('prints nothing sensitive: objects, child bindings, errors, messages and query strings', () => {
    const out = capture();
    const log = createLogger(config, { name: 'test', destination: out.destination });
    const child = log.child({ authorization: 'Bearer abc123' });
    child.info({ body: { password: 'pw-1' }, url: '/x?secret=s-2' }, 'calling /cb?token=t-3');
    child.error(Object.assign(new Error('failed'), { apiToken: 'tok-4' }), 'failed');
    assert.equal(out.lines.length, 2);
    assert.doesNotMatch(out.text(), /abc123|pw-1|s-2|t-3|tok-4/);
    assert.match(out.text(), /failed/);
  });

  it('tags every line written inside a request with its request id', async () => {
    const out = capture();
    const log = createLogger(config, { name: 'test', destination: out.destination });
    await logContext.run({ reqId: 'req-42' }, async () => {
      log.info('first');
      await setImmediate(); // across a turn of the event loop, as a request's awaits go
      log.child({ component: 'x' }).warn('second');
    });
    log.info('outside');
    assert.deepEqual(
      out.lines.map((line) => line.reqId),
      ['req-42', 'req-42', undefined],
    );
  });

  it('writes JSON in production', () => {
    const out = capture();
    createLogger(config, { name: 'web', destination: out.destination }).info('hello');
    assert.equal(out.lines[0].msg, 'hello');
    assert.equal(out.lines[0].name, 'web');
  });
});
