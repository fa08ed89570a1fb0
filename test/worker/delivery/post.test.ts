import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { TLSSocket } from 'node:tls';
import { postDelivery, type AttemptResult, type DeliveryRequest } from '../../../worker/delivery/post.ts';
import type { HostLookup } from '../../../shared/webhooks/address-rules.ts';
import { dispatcher, lookupAnswering, rawReceiver, receiver } from './harness.ts';
import { TLS_CERT, TLS_KEY } from '../../fixtures/tls.ts';

const loopback = dispatcher({ allowPrivate: true });

const request = (url: string, extra: Partial<DeliveryRequest> = {}): DeliveryRequest => ({
  url,
  headers: { 'content-type': 'application/json; charset=utf-8', 'webhook-id': 'msg_1' },
  body: '{"data":{},"id":"msg_1","timestamp":"2026-01-01T00:00:00.000Z","type":"test.ping"}',
  timeoutMs: 2000,
  allowHttp: true,
  allowPrivate: true,
  ...extra,
});

function expectKind<K extends AttemptResult['kind']>(
  result: AttemptResult,
  kind: K,
): Extract<AttemptResult, { kind: K }> {
  assert.equal(result.kind, kind, JSON.stringify(result));
  return result as Extract<AttemptResult, { kind: K }>;
}

describe('postDelivery: receiver answers', () => {
  it('POSTs the body and headers to the path and query of the url and reports a 200 with its excerpt', async () => {
    const server = await receiver((_req, res) => res.end('thanks'));
    const result = expectKind(await postDelivery(loopback, request(`${server.origin}/hooks/in?x=1`)), 'response');
    assert.equal(result.status, 200);
    assert.equal(result.excerpt, 'thanks');
    assert.ok(result.durationMs >= 0, String(result.durationMs));
    assert.equal(server.requests.length, 1);
    const [received] = server.requests;
    assert.equal(received.method, 'POST');
    assert.equal(received.url, '/hooks/in?x=1');
    assert.equal(received.headers['webhook-id'], 'msg_1');
    assert.equal(received.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(received.body.toString(), request('').body);
  });

  for (const status of [201, 410, 400, 500, 503]) {
    it(`reports the status ${status} the receiver answers`, async () => {
      const server = await receiver((_req, res) => {
        res.statusCode = status;
        res.end(`answer ${status}`);
      });
      const result = expectKind(await postDelivery(loopback, request(`${server.origin}/`)), 'response');
      assert.equal(result.status, status);
      assert.equal(result.excerpt, `answer ${status}`);
    });
  }

  it('reports a 429 and carries nothing of its Retry-After', async () => {
    const server = await receiver((_req, res) => {
      res.writeHead(429, { 'retry-after': '3600' });
      res.end('slow down');
    });
    const result = expectKind(await postDelivery(loopback, request(`${server.origin}/`)), 'response');
    assert.equal(result.status, 429);
    assert.deepEqual(Object.keys(result).toSorted(), ['address', 'durationMs', 'excerpt', 'kind', 'status']);
    assert.equal(result.address, '127.0.0.1', 'the address dialled, nothing of the answer');
  });

  it('does not follow a 301: it reports the Location and the target sees no request', async () => {
    const target = await receiver((_req, res) => res.end('moved here'));
    const server = await receiver((_req, res) => {
      res.writeHead(301, { location: `${target.origin}/new` });
      res.end();
    });
    const result = expectKind(await postDelivery(loopback, request(`${server.origin}/old`)), 'response');
    assert.equal(result.status, 301);
    assert.equal(result.location, `${target.origin}/new`);
    // a redirect followed would have been requested before postDelivery answered: nothing can come later
    assert.equal(target.connections, 0);
    assert.equal(target.requests.length, 0);
  });

  it('an interim 1xx answer is not the answer: a 302 after a 103 carrying a Location reports no Location', async () => {
    const server = await receiver((_req, res) => {
      res.writeEarlyHints({ link: '</style.css>; rel=preload', location: 'http://169.254.169.254/latest/' }, () => {
        res.writeHead(302);
        res.end();
      });
    });
    const result = expectKind(await postDelivery(loopback, request(`${server.origin}/`)), 'response');
    assert.equal(result.status, 302);
    assert.equal(result.location, undefined, 'the Location of the 103 is not the redirect');
  });

  it('an unasked 100 Continue is a broken answer: a connection error, whatever follows it', async () => {
    const server = await receiver((_req, res) => {
      res.writeContinue();
      res.end('ok');
    });
    expectKind(await postDelivery(loopback, request(`${server.origin}/`)), 'connection-error');
  });

  it('decodes the excerpt as UTF-8, replacing invalid sequences', async () => {
    const server = await receiver((_req, res) => res.end(Buffer.from([0x68, 0xc3, 0xa9, 0xff, 0x21])));
    const result = expectKind(await postDelivery(loopback, request(`${server.origin}/`)), 'response');
    assert.equal(result.excerpt, 'hé\uFFFD!');
  });

  it('delivers a 1 MB request body intact', async () => {
    const body = randomBytes(1024 * 1024).toString('base64'); // 1.33 MB of text
    const server = await receiver((_req, res) => res.end('ok'));
    const result = expectKind(await postDelivery(loopback, request(`${server.origin}/`, { body })), 'response');
    assert.equal(result.status, 200);
    assert.equal(server.requests[0].body.length, Buffer.byteLength(body));
    assert.equal(server.requests[0].body.toString(), body);
  });
});

describe('postDelivery: the whole exchange is bounded by timeoutMs', () => {
  it('times out when the receiver never answers', async () => {
    const server = await receiver(() => {});
    const result = expectKind(
      await postDelivery(loopback, request(`${server.origin}/`, { timeoutMs: 300 })),
      'timeout',
    );
    // the receiver never answers, so only the 300 ms timeout ended it (however late a busy machine ran it)
    assert.ok(result.durationMs >= 290, String(result.durationMs));
    assert.match(result.error, /300 ms/);
    assert.equal(server.requests.length, 1);
  });

  it('times out when the receiver sends the headers and then stalls the body', async () => {
    const server = await receiver((_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('partial');
    });
    const result = expectKind(
      await postDelivery(loopback, request(`${server.origin}/`, { timeoutMs: 300 })),
      'timeout',
    );
    assert.ok(result.durationMs >= 290, String(result.durationMs));
    assert.match(result.error, /300 ms/);
  });

  it('times out a body trickling in slower than timeoutMs overall, though each byte comes in time', async () => {
    const server = await receiver((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write('x')), 50);
      res.on('close', () => clearInterval(drip));
    });
    const result = expectKind(
      await postDelivery(loopback, request(`${server.origin}/`, { timeoutMs: 400 })),
      'timeout',
    );
    assert.ok(result.durationMs >= 390, String(result.durationMs));
    assert.match(result.error, /400 ms/);
  });
  it('counts the wait for a connection: a request queued behind a busy one times out at its own deadline, unsent', async () => {
    const server = await receiver((req, res) => {
      if (req.headers['webhook-id'] !== 'held') res.end('ok');
    });
    const single = dispatcher({ allowPrivate: true, connections: 1 });
    const asId = (id: string, timeoutMs: number) =>
      request(`${server.origin}/`, { timeoutMs, headers: { 'webhook-id': id } });
    const held = postDelivery(single, asId('held', 3000));
    const queued = expectKind(await postDelivery(single, asId('queued', 300)), 'timeout');
    // it ended at its own 300 ms, not when the held request's 3 s freed the connection
    assert.ok(queued.durationMs >= 290 && queued.durationMs < 2500, String(queued.durationMs));
    assert.match(queued.error, /300 ms/);
    expectKind(await held, 'timeout');
    // a request queued after it is answered, so the timed-out one had its turn before: it was never sent
    expectKind(await postDelivery(single, asId('after', 3000)), 'response');
    assert.deepEqual(
      server.requests.map((received) => received.headers['webhook-id']),
      ['held', 'after'],
    );
  });
});

describe('postDelivery: reading the answer', () => {
  it('reads 64 kB of a 10 MB answer and returns without the rest: the socket is dropped before the receiver is done', async () => {
    const total = 10 * 1024 * 1024;
    let written = 0;
    let closedEarly: Promise<boolean> = Promise.resolve(false);
    const server = await receiver((_req, res) => {
      res.writeHead(200, { 'content-length': String(total) });
      const chunk = Buffer.alloc(16 * 1024, 'a');
      closedEarly = new Promise((resolve) => res.on('close', () => resolve(written < total)));
      const pump = () => {
        while (written < total && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        if (written >= total) res.end();
      };
      pump();
    });
    const result = expectKind(
      await postDelivery(loopback, request(`${server.origin}/`, { timeoutMs: 5000 })),
      'response',
    );
    assert.equal(result.status, 200);
    assert.equal(Buffer.byteLength(result.excerpt), 65_536);
    assert.equal(await closedEarly, true, `receiver wrote all ${written} bytes before the socket closed`);
  });

  it('inflates nothing: a gzip answer of 10 MB is read as its compressed bytes', async () => {
    const compressed = gzipSync(Buffer.alloc(10 * 1024 * 1024, 'a'));
    const server = await receiver((_req, res) => {
      res.writeHead(500, { 'content-encoding': 'gzip', 'content-length': String(compressed.length) });
      res.end(compressed);
    });
    const result = expectKind(await postDelivery(loopback, request(`${server.origin}/`)), 'response');
    assert.equal(result.status, 500);
    assert.ok(compressed.length < 65_536, String(compressed.length));
    // the gzip header (1f 8b: 0x8b is no UTF-8 start, so U+FFFD), never the inflated text
    assert.ok(result.excerpt.startsWith('\u001f\uFFFD'), JSON.stringify(result.excerpt.slice(0, 8)));
    assert.ok(!result.excerpt.includes('a'.repeat(1000)));
  });

  it('honours a smaller excerptBytes', async () => {
    const server = await receiver((_req, res) => res.end('0123456789'));
    const result = expectKind(
      await postDelivery(loopback, request(`${server.origin}/`, { excerptBytes: 4 })),
      'response',
    );
    assert.equal(result.excerpt, '0123');
  });

  it('reports a connection error when the receiver closes the connection mid-answer', async () => {
    const server = await receiver((req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('only a part', () => req.socket.destroy());
    });
    const result = expectKind(await postDelivery(loopback, request(`${server.origin}/`)), 'connection-error');
    assert.ok(result.error.length > 0);
  });

  it('reports a connection error when nothing listens on the port', async () => {
    const server = await receiver(() => {});
    const closedOrigin = server.origin;
    await server.close();
    const result = expectKind(await postDelivery(loopback, request(`${closedOrigin}/`)), 'connection-error');
    assert.match(result.error, /ECONNREFUSED/);
  });
});

describe('postDelivery: an answer that is not HTTP/1.1 is a connection error saying why', () => {
  const requestEnd = '"type":"test.ping"}';
  const broken = [
    ['an HTTP/0.9 answer, a body without a status line', 'hello\n', /does not match the HTTP\/1\.1 protocol/],
    [
      'a NUL in a header value',
      'HTTP/1.1 302 Found\r\nlocation: /a\u0000b\r\ncontent-length: 0\r\n\r\n',
      /Invalid header value char/,
    ],
    ['lines ended by LF alone', 'HTTP/1.1 200 OK\ncontent-length: 2\n\nok', /does not match the HTTP\/1\.1 protocol/],
    [
      'a 101 Switching Protocols no request asked for',
      'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n',
      /bad upgrade/,
    ],
    [
      'a status below 100',
      'HTTP/1.1 000 None\r\ncontent-length: 0\r\n\r\n',
      /^the answer's status 0 is not an HTTP status$/,
    ],
  ] as const;
  for (const [name, answer, reason] of broken) {
    it(name, async () => {
      const origin = await rawReceiver(answer, requestEnd);
      const result = expectKind(await postDelivery(loopback, request(`${origin}/`)), 'connection-error');
      assert.match(result.error, reason);
    });
  }

  it("plain text from an https url: a TLS error in one line without OpenSSL's source file, nothing sent", async () => {
    const origin = await rawReceiver('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok', '');
    const url = `${origin.replace(/^http:/, 'https:')}/`;
    const result = expectKind(await postDelivery(loopback, request(url, { allowHttp: false })), 'connection-error');
    assert.equal(result.error, 'ERR_SSL_WRONG_VERSION_NUMBER: TLS error: wrong version number');
    assert.equal(result.address, undefined, 'no request was written');
  });
});

describe('postDelivery: addresses and urls', () => {
  it('refuses a loopback literal without allowPrivate, and no connection reaches the receiver', async () => {
    const server = await receiver((_req, res) => res.end('ok'));
    const strict = dispatcher({ allowPrivate: false });
    const result = expectKind(
      await postDelivery(strict, request(`${server.origin}/`, { allowPrivate: false })),
      'address-refused',
    );
    assert.equal(result.address, '127.0.0.1');
    assert.match(result.rule, /loopback/);
    assert.equal(server.connections, 0);
  });

  it('refuses a loopback literal at the dispatcher even when postDelivery is told allowPrivate', async () => {
    const server = await receiver((_req, res) => res.end('ok'));
    const strict = dispatcher({ allowPrivate: false });
    const result = expectKind(await postDelivery(strict, request(`${server.origin}/`)), 'address-refused');
    assert.equal(result.address, '127.0.0.1');
    assert.equal(server.connections, 0);
  });

  it('refuses a name that resolves to the loopback, with the address it resolved to, before connecting', async () => {
    const server = await receiver((_req, res) => res.end('ok'));
    const lookup = lookupAnswering('127.0.0.1');
    const strict = dispatcher({ allowPrivate: false, lookup });
    const result = expectKind(
      await postDelivery(strict, request(`http://hooks.example.test:${server.port}/`, { allowPrivate: false })),
      'address-refused',
    );
    assert.equal(result.address, '127.0.0.1');
    assert.match(result.rule, /loopback/);
    assert.match(result.error, /hooks\.example\.test/);
    assert.equal(lookup.calls, 1);
    assert.equal(server.connections, 0);
  });

  it('refuses a name when one of its answers (public, private) is refused', async () => {
    // the loopback answer comes first and a real receiver listens there, so even a broken
    // check would connect to this machine, never to the public address
    const server = await receiver((_req, res) => res.end('ok'));
    const lookup = lookupAnswering('127.0.0.1', '8.8.8.8');
    const strict = dispatcher({ allowPrivate: false, lookup });
    const result = expectKind(
      await postDelivery(
        strict,
        request(`http://hooks.example.test:${server.port}/`, { allowPrivate: false, timeoutMs: 1000 }),
      ),
      'address-refused',
    );
    assert.equal(result.address, '127.0.0.1');
    assert.equal(server.connections, 0);
  });

  it('delivers to a made-up name resolving to the loopback when allowPrivate, sending the name as Host', async () => {
    const server = await receiver((_req, res) => res.end('ok'));
    const lookup = lookupAnswering('127.0.0.1');
    const lenient = dispatcher({ allowPrivate: true, lookup });
    const result = expectKind(
      await postDelivery(lenient, request(`http://hooks.example.test:${server.port}/in`)),
      'response',
    );
    assert.equal(result.status, 200);
    assert.equal(server.requests[0].headers.host, `hooks.example.test:${server.port}`);
    assert.equal(lookup.calls, 1);
  });

  it('delivers over https to a name resolving to the loopback, the certificate checked against the name, and names the address', async () => {
    let servername: string | false | null | undefined;
    const server = await receiver(
      (req, res) => {
        servername = (req.socket as TLSSocket).servername;
        res.end('secure thanks');
      },
      { key: TLS_KEY, cert: TLS_CERT },
    );
    const secure = dispatcher({ allowPrivate: true, lookup: lookupAnswering('127.0.0.1'), ca: TLS_CERT });
    const result = expectKind(
      await postDelivery(secure, request(`https://hooks.example.test:${server.port}/in`, { allowHttp: false })),
      'response',
    );
    assert.equal(result.status, 200);
    assert.equal(result.excerpt, 'secure thanks');
    assert.equal(result.address, '127.0.0.1');
    assert.equal(servername, 'hooks.example.test');
    assert.equal(server.requests[0]?.url, '/in');
    // the same address under a name the certificate does not carry: refused by TLS, nothing sent
    const other = expectKind(
      await postDelivery(secure, request(`https://other.example.test:${server.port}/in`, { allowHttp: false })),
      'connection-error',
    );
    assert.match(other.error, /ERR_TLS_CERT_ALTNAME_INVALID/);
    assert.equal(server.requests.length, 1);
  });

  it('reports a name that does not resolve as a connection error', async () => {
    const failing: HostLookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example.test'), { code: 'ENOTFOUND' });
    };
    const result = expectKind(
      await postDelivery(
        dispatcher({ allowPrivate: false, lookup: failing }),
        request('https://nowhere.example.test/', { allowPrivate: false }),
      ),
      'connection-error',
    );
    assert.match(result.error, /ENOTFOUND|does not resolve/);
  });

  const invalid = [
    ['http without allowHttp', 'http://hooks.example.com/', { allowHttp: false }],
    ['credentials', 'https://user:pass@hooks.example.com/', {}],
    ['javascript:', 'javascript:alert(1)', {}],
    ['file:', 'file:///etc/passwd', {}],
    ['no host', 'https:///nohost', {}],
    ['garbage', 'not a url', {}],
  ] as const;
  for (const [name, url, extra] of invalid) {
    it(`reports an invalid url (${name}) without sending anything`, async () => {
      const result = expectKind(await postDelivery(loopback, request(url, extra)), 'invalid-url');
      assert.match(result.error, /not acceptable/);
    });
  }
});
