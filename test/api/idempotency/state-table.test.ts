/**
 * The idempotent request state table (the states of one key) and the 400/409/422 rows of
 * the error table, over real HTTP, in one web process (the shared backend tests run the same
 * rules across two processes).
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { before, describe, it } from 'node:test';
import { IDEMPOTENCY_ERRORS } from '../../../api/idempotency/errors.ts';
import { eventually } from '../../helpers/poll.ts';
import { request, startGuardedApp, type GuardedApp } from './guarded-app.ts';

let keys = 0;
const freshKey = () => `key-${process.pid}-${(keys += 1)}`;

/** Headers of an answer minus those that describe the exchange, for byte-for-byte comparisons. */
const answerHeaders = (headers: Headers) =>
  Object.fromEntries(
    [...headers].filter(
      ([name]) =>
        ![
          'date',
          'x-request-id',
          'idempotency-replayed',
          'ratelimit',
          'ratelimit-policy',
          'keep-alive',
          'connection',
        ].includes(name),
    ),
  );

/** Resolves with the first `count` answers of `answers` to settle (the others keep going). */
function waitForAnswers<T>(answers: Promise<T>[], count: number): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const done: T[] = [];
    for (const answer of answers) {
      answer.then((value) => {
        done.push(value);
        if (done.length === count) resolve([...done]);
      }, reject);
    }
  });
}

describe('idempotent request state table', () => {
  let app: GuardedApp;
  before(async () => {
    app = await startGuardedApp();
  });

  it('no record + first request with key: executed, the normal answer', async () => {
    const key = freshKey();
    const first = await request('POST', `${app.base}/orders`, {
      body: { item: 'a' },
      headers: { 'Idempotency-Key': key },
    });
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('idempotency-replayed'), null);
    assert.equal(first.body.received.item, 'a');
  });

  it('stored + same key, same request: the stored answer with Idempotency-Replayed: true; status, headers and body byte for byte', async () => {
    const key = freshKey();
    const before = app.runs.get('/orders') ?? 0;
    const first = await request('POST', `${app.base}/orders`, {
      body: { item: 'b' },
      headers: { 'Idempotency-Key': key },
    });
    const again = await request('POST', `${app.base}/orders`, {
      body: { item: 'b' },
      headers: { 'Idempotency-Key': key },
    });
    assert.equal(app.runs.get('/orders'), before + 1, 'the action ran once');
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.equal(again.status, first.status);
    assert.equal(again.text, first.text);
    assert.deepEqual(answerHeaders(again.headers), answerHeaders(first.headers));
    assert.equal(again.headers.get('location'), first.headers.get('location'));
    assert.equal(again.headers.get('x-run'), first.headers.get('x-run'));
    assert.notEqual(
      again.headers.get('x-request-id'),
      first.headers.get('x-request-id'),
      "the request id is the new request's",
    );
  });

  it('executing + same key, same request: 409 APP_API_IDEMPOTENCY_IN_PROGRESS with Retry-After: 1', async () => {
    const key = freshKey();
    const hold = `in-progress-${key}`;
    const slow = request('POST', `${app.base}/orders?hold=${hold}`, {
      body: { item: 'c' },
      headers: { 'Idempotency-Key': key },
    });
    await app.holds.reached(hold); // the first request's action is running
    const during = await request('POST', `${app.base}/orders?hold=${hold}`, {
      body: { item: 'c' },
      headers: { 'Idempotency-Key': key },
    });
    assert.equal(during.status, 409);
    assert.equal(during.body.code, 'APP_API_IDEMPOTENCY_IN_PROGRESS');
    assert.equal(during.headers.get('retry-after'), '1');
    app.holds.release(hold);
    assert.equal((await slow).status, 201);
  });

  const first = { method: 'PUT', path: '/orders/7', body: { item: 'd' } };
  for (const [change, second] of [
    ['a different body', { ...first, body: { item: 'other' } }],
    ['a different path', { ...first, path: '/orders/8' }],
    ['a different method', { ...first, method: 'PATCH' }],
    ['a different query string', { ...first, path: '/orders/7?notify=1' }],
  ] as const) {
    it(`stored + same key with ${change}: 422 APP_API_IDEMPOTENCY_KEY_REUSED, record unchanged`, async () => {
      const key = freshKey();
      const send = (r: { method: string; path: string; body: object }) =>
        request(r.method, `${app.base}${r.path}`, { body: r.body, headers: { 'Idempotency-Key': key } });
      const stored = await send(first);
      const reused = await send(second);
      assert.equal(reused.status, IDEMPOTENCY_ERRORS.reused.status, reused.text);
      assert.equal(reused.body.code, IDEMPOTENCY_ERRORS.reused.code);
      const replay = await send(first);
      assert.equal(replay.headers.get('idempotency-replayed'), 'true');
      assert.equal(replay.text, stored.text, 'the stored answer is still there');
    });
  }

  it('executing + same key with a different body while in flight: 422 as well', async () => {
    const key = freshKey();
    const hold = `in-flight-${key}`;
    const slow = request('POST', `${app.base}/orders?hold=${hold}`, {
      body: { item: 'e' },
      headers: { 'Idempotency-Key': key },
    });
    await app.holds.reached(hold);
    const other = await request('POST', `${app.base}/orders?hold=${hold}`, {
      body: { item: 'f' },
      headers: { 'Idempotency-Key': key },
    });
    assert.equal(other.status, 422);
    app.holds.release(hold);
    await slow;
  });

  for (const status of [500, 503]) {
    it(`executing + first answer is ${status}: nothing stored, the client may retry (the action runs again)`, async () => {
      const key = freshKey();
      const first = await request('POST', `${app.base}/fail?status=${status}`, { headers: { 'Idempotency-Key': key } });
      assert.equal(first.status, status);
      const retry = await request('POST', `${app.base}/fail?status=${status}`, { headers: { 'Idempotency-Key': key } });
      assert.equal(retry.status, status);
      assert.equal(retry.headers.get('idempotency-replayed'), null);
      assert.equal(retry.body.run, first.body.run + 1, 'executed again');
    });
  }

  it('executing + the action throws (500): nothing stored, the client may retry', async () => {
    const key = freshKey();
    assert.equal((await request('POST', `${app.base}/crash`, { headers: { 'Idempotency-Key': key } })).status, 500);
    assert.equal((await request('POST', `${app.base}/crash`, { headers: { 'Idempotency-Key': key } })).status, 500);
    assert.equal(app.runs.get('/crash'), 2);
  });

  it('executing + the action refuses (a thrown 4xx): the refusal is the answer stored, replayed; another request with the key is 422', async () => {
    const key = freshKey();
    const before = app.runs.get('/refuse') ?? 0;
    const first = await request('POST', `${app.base}/refuse`, { headers: { 'Idempotency-Key': key } });
    assert.equal(first.status, 422);
    assert.match(first.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const again = await request('POST', `${app.base}/refuse`, { headers: { 'Idempotency-Key': key } });
    assert.equal(again.status, 422);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(again.body, first.body, 'the same problem, its request id included');
    assert.equal(app.runs.get('/refuse'), before + 1, 'the action ran once');
    const other = await request('POST', `${app.base}/refuse`, {
      headers: { 'Idempotency-Key': key },
      body: { another: 'body' },
    });
    assert.equal(other.status, 422);
    assert.equal(other.body.code, 'APP_API_IDEMPOTENCY_KEY_REUSED');
  });

  it('executing + request aborted by the client: nothing stored, the retry runs the action', async () => {
    const key = freshKey();
    const controller = new AbortController();
    const hold = `aborted-${key}`;
    const aborted = fetch(`${app.base}/orders?hold=${hold}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify({ item: 'g' }),
      signal: controller.signal,
    }).catch((error: Error) => error);
    await app.holds.reached(hold); // the action runs
    const runsBefore = app.runs.get('/orders') ?? 0;
    controller.abort();
    assert.ok((await aborted) instanceof Error);
    await app.holds.closed(hold); // the server saw the client go
    app.holds.release(hold); // the action finishes; its answer is not stored
    // until the finished action's record is let go, the same key is still in progress (409)
    // (the same request: its hold is released, so the action runs through)
    const again = () =>
      request('POST', `${app.base}/orders?hold=${hold}`, { body: { item: 'g' }, headers: { 'Idempotency-Key': key } });
    let retry = await again();
    for (const deadline = Date.now() + 10_000; retry.status === 409 && Date.now() < deadline; ) {
      await new Promise((resolve) => setImmediate(resolve));
      retry = await again();
    }
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers.get('idempotency-replayed'), null);
    assert.equal(app.runs.get('/orders'), runsBefore + 1, 'the retry ran the action');
  });

  for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
    it(`${method} is covered too: the second request is a replay`, async () => {
      const key = freshKey();
      const path = `/orders/${method.toLowerCase()}`;
      const body = method === 'DELETE' ? undefined : { item: method };
      const first = await request(method, `${app.base}${path}`, { body, headers: { 'Idempotency-Key': key } });
      const again = await request(method, `${app.base}${path}`, { body, headers: { 'Idempotency-Key': key } });
      assert.equal(again.headers.get('idempotency-replayed'), 'true');
      assert.equal(again.status, first.status);
      assert.equal(again.text, first.text);
      assert.equal(app.runs.get(path), 1);
    });
  }

  it('a streamed answer is stored and replayed byte for byte', async () => {
    const key = freshKey();
    const first = await request('POST', `${app.base}/stream`, { headers: { 'Idempotency-Key': key } });
    const again = await request('POST', `${app.base}/stream`, { headers: { 'Idempotency-Key': key } });
    assert.equal(first.text, 'run 1\nstreamed\n');
    assert.equal(again.text, first.text);
    assert.equal(again.headers.get('content-type'), first.headers.get('content-type'));
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
  });

  it('50 parallel identical requests: one execution, the others 409 while it runs, then the replay', async () => {
    const key = freshKey();
    const hold = `parallel-${key}`;
    const path = `/orders?hold=${hold}`;
    const before = app.runs.get('/orders') ?? 0;
    const send = () =>
      request('POST', `${app.base}${path}`, { body: { item: 'p' }, headers: { 'Idempotency-Key': key } });
    const sent = Array.from({ length: 50 }, send);
    // the one that runs is held until released: every other one is answered meanwhile
    const answered = await waitForAnswers(sent, 49);
    assert.deepEqual(
      [...new Set(answered.map((a) => a.status))],
      [409],
      'while the first runs, every other request is told 409',
    );
    app.holds.release(hold);
    const all = await Promise.all(sent);
    const created = all.filter((a) => a.status === 201 && !a.headers.get('idempotency-replayed'));
    assert.equal(created.length, 1, 'exactly one request ran the action');
    assert.equal(app.runs.get('/orders'), before + 1);
    const replay = await send();
    assert.equal(replay.headers.get('idempotency-replayed'), 'true', 'once it ran, the same request gets the replay');
  });

  it('requests without a key are not affected (each runs)', async () => {
    const before = app.runs.get('/orders') ?? 0;
    await request('POST', `${app.base}/orders`, { body: { item: 'n' } });
    await request('POST', `${app.base}/orders`, { body: { item: 'n' } });
    assert.equal(app.runs.get('/orders'), before + 2);
  });

  it('a route marked idempotent: false, and /login, run every time even with a key', async () => {
    const key = freshKey();
    for (const path of ['/opt-out', '/login']) {
      const first = await request('POST', `${app.base}${path}`, { body: {}, headers: { 'Idempotency-Key': key } });
      const again = await request('POST', `${app.base}${path}`, { body: {}, headers: { 'Idempotency-Key': key } });
      assert.equal(again.headers.get('idempotency-replayed'), null, path);
      assert.equal(again.body.run, first.body.run + 1, path);
    }
  });

  it('keys are scoped: per user, else per session (a portal session has no user), else per ip', async () => {
    const key = freshKey();
    const send = (headers: Record<string, string>) =>
      request('POST', `${app.base}/orders`, { body: { item: 's' }, headers: { 'Idempotency-Key': key, ...headers } });
    const alice = await send({ 'X-Test-Principal': 'alice' });
    const bob = await send({ 'X-Test-Principal': 'bob' });
    const session = await send({ 'X-Test-Session': 'sess-1' });
    const otherSession = await send({ 'X-Test-Session': 'sess-2' });
    const anonymous = await send({});
    const runs = [alice, bob, session, otherSession, anonymous].map((a) => a.body.run);
    assert.equal(new Set(runs).size, 5, 'five scopes, five executions: two portal sessions of one owner share none');
    assert.equal(
      (await send({ 'X-Test-Principal': 'alice', 'X-Test-Session': 'other' })).body.run,
      alice.body.run,
      'the user wins over the session',
    );
    assert.equal((await send({ 'X-Test-Session': 'sess-1' })).body.run, session.body.run);
    assert.equal((await send({})).body.run, anonymous.body.run);
  });

  it('a quoted RFC 8941 string key means its content', async () => {
    const key = freshKey();
    const first = await request('POST', `${app.base}/orders`, {
      body: { item: 'q' },
      headers: { 'Idempotency-Key': `"${key}"` },
    });
    const again = await request('POST', `${app.base}/orders`, {
      body: { item: 'q' },
      headers: { 'Idempotency-Key': key },
    });
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.equal(again.text, first.text);
  });
});

describe('invalid Idempotency-Key: 400 APP_API_IDEMPOTENCY_KEY_INVALID, the action never runs', () => {
  let app: GuardedApp;
  before(async () => {
    app = await startGuardedApp();
  });

  for (const [rule, value] of [
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a non-ASCII character', 'clé'],
    ['a malformed quoted form', '"a"b"'],
  ] as const) {
    it(`refuses a key that is ${rule}`, async () => {
      const answer = await request('POST', `${app.base}/orders`, {
        body: { item: 'x' },
        headers: { 'Idempotency-Key': value },
      });
      assert.equal(answer.status, IDEMPOTENCY_ERRORS.invalid.status, answer.text);
      assert.equal(answer.body.code, IDEMPOTENCY_ERRORS.invalid.code);
      assert.equal(answer.headers.get('content-type'), 'application/problem+json');
      assert.equal(app.runs.get('/orders'), undefined);
    });
  }

  it('accepts 255 characters', async () => {
    const answer = await request('POST', `${app.base}/orders`, {
      body: { item: 'x' },
      headers: { 'Idempotency-Key': 'k'.repeat(255) },
    });
    assert.equal(answer.status, 201);
    app.runs.delete('/orders');
  });

  it('refuses control characters (a tab, sent raw on the socket; Node itself refuses the others with 400)', async () => {
    const port = Number(new URL(app.base).port);
    const send = (value: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.end(
            `POST /orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nIdempotency-Key: ${value}\r\nConnection: close\r\n\r\n{}`,
          );
        });
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString('latin1')));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
    const tab = await send('ab\tcd');
    assert.match(tab, /^HTTP\/1\.1 400/);
    assert.match(tab, /APP_API_IDEMPOTENCY_KEY_INVALID/);
    const bell = await send('ab\x07cd');
    assert.match(bell, /^HTTP\/1\.1 400/);
    assert.equal(app.runs.get('/orders'), undefined);
  });
});

describe('a request that outlives config.requestTimeout', () => {
  it('answers 503 to the client and stores nothing: 409 while the action still runs, a fresh run after', async () => {
    const app = await startGuardedApp({ flags: { requestTimeout: '200ms' } });
    // the action is held until released: it outlives the timeout however fast or slow the machine
    const send = () =>
      request('POST', `${app.base}/orders?hold=timeout-1`, {
        body: { item: 't' },
        headers: { 'Idempotency-Key': 'timeout-1' },
      });
    assert.equal((await send()).status, 503);
    assert.equal((await send()).status, 409, 'the first action is still running');
    app.holds.release('timeout-1'); // the first action ends (its answer goes nowhere), and its claim with it
    const again = await eventually(
      async () => {
        const answer = await send();
        return answer.status === 409 ? undefined : answer;
      },
      10_000,
      "the first action's claim to be dropped",
    );
    assert.equal(again.status, 201, 'it ran again: nothing had been stored');
    assert.equal(again.headers.get('idempotency-replayed'), null);
    assert.equal(again.body.run, 2);
    assert.equal(app.runs.get('/orders'), 2);
  });
});

describe('api.idempotency: false', () => {
  it('turns idempotency keys off: every request runs, no key is checked', async () => {
    const app = await startGuardedApp({ flags: { api: { idempotency: false } } });
    const first = await request('POST', `${app.base}/orders`, { body: {}, headers: { 'Idempotency-Key': 'same' } });
    const again = await request('POST', `${app.base}/orders`, { body: {}, headers: { 'Idempotency-Key': 'same' } });
    assert.equal(again.body.run, first.body.run + 1);
    assert.equal(
      (await request('POST', `${app.base}/orders`, { body: {}, headers: { 'Idempotency-Key': 'k'.repeat(300) } }))
        .status,
      201,
    );
  });
});
