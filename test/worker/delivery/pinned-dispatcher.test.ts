import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import type { TLSSocket } from 'node:tls';
import { AppError } from '../../../shared/errors/app-error.ts';
import { pinnedLookup } from '../../../worker/delivery/pinned-dispatcher.ts';
import { dispatcher, lookupAnswering, receiver } from './harness.ts';
import { TLS_CERT, TLS_KEY } from '../../fixtures/tls.ts';

/** The AppError found in `error` or its causes. */
function appErrorIn(error: unknown): AppError | undefined {
  for (let link = error; link instanceof Error; link = link.cause) if (link instanceof AppError) return link;
  return undefined;
}

function callLookup(
  lookup: ReturnType<typeof pinnedLookup>,
  hostname: string,
  options: { all?: boolean; family?: number },
): Promise<{ error: Error | null; address: string | LookupAddress[]; family?: number }> {
  return new Promise((resolve) =>
    lookup(hostname, options, (error, address, family) => resolve({ error, address, family })),
  );
}

describe('pinnedLookup', () => {
  it('answers every checked address when asked for all, after one resolution', async () => {
    const resolver = lookupAnswering('8.8.8.8', '2606:4700::1111');
    const answer = await callLookup(pinnedLookup({ allowPrivate: false, lookup: resolver }), 'hooks.example.test', {
      all: true,
    });
    assert.equal(answer.error, null);
    assert.deepEqual(answer.address, [
      { address: '8.8.8.8', family: 4 },
      { address: '2606:4700::1111', family: 6 },
    ]);
    assert.equal(resolver.calls, 1);
  });

  it('answers the first checked address of the asked family when not asked for all', async () => {
    const lookup = pinnedLookup({ allowPrivate: false, lookup: lookupAnswering('8.8.8.8', '2606:4700::1111') });
    assert.deepEqual(await callLookup(lookup, 'hooks.example.test', {}), {
      error: null,
      address: '8.8.8.8',
      family: 4,
    });
    assert.deepEqual(await callLookup(lookup, 'hooks.example.test', { family: 6 }), {
      error: null,
      address: '2606:4700::1111',
      family: 6,
    });
  });

  it('fails with APP_WEBHOOK_ADDRESS_REFUSED when any answer is refused, handing out no address', async () => {
    const lookup = pinnedLookup({ allowPrivate: false, lookup: lookupAnswering('8.8.8.8', '169.254.169.254') });
    const answer = await callLookup(lookup, 'hooks.example.test', { all: true });
    assert.ok(answer.error instanceof AppError);
    assert.equal(answer.error.code, 'APP_WEBHOOK_ADDRESS_REFUSED');
    assert.equal(answer.error.data?.address, '169.254.169.254');
    assert.equal(answer.address, '');
  });

  it('fails with APP_WEBHOOK_HOST_UNRESOLVABLE when no answer has the asked family', async () => {
    const lookup = pinnedLookup({ allowPrivate: false, lookup: lookupAnswering('8.8.8.8') });
    const answer = await callLookup(lookup, 'hooks.example.test', { family: 6 });
    assert.ok(answer.error instanceof AppError);
    assert.equal(answer.error.code, 'APP_WEBHOOK_HOST_UNRESOLVABLE');
  });
});

describe('createPinnedDispatcher', () => {
  it('resolves a name once per connection and reuses the connection for the next request', async () => {
    const server = await receiver((_req, res) => res.end('ok'));
    const lookup = lookupAnswering('127.0.0.1');
    // One connection per origin at most: the next request waits for it rather than racing the
    // pool's return of the socket with a timer.
    const agent = dispatcher({ allowPrivate: true, lookup, connections: 1 });
    for (let i = 0; i < 3; i += 1) {
      const response = await agent.request({
        origin: `http://hooks.example.test:${server.port}`,
        path: '/',
        method: 'POST',
        body: 'x',
      });
      assert.equal(await response.body.text(), 'ok');
    }
    assert.equal(server.requests.length, 3);
    assert.equal(server.connections, 1);
    assert.equal(lookup.calls, 1);
  });

  it('refuses a refused IP literal in the connector itself, before any connection', async () => {
    const server = await receiver((_req, res) => res.end('ok'));
    const agent = dispatcher({ allowPrivate: false });
    await assert.rejects(
      agent.request({ origin: server.origin, path: '/', method: 'POST', body: 'x' }),
      (error: unknown) => {
        const refusal = appErrorIn(error);
        assert.equal(refusal?.code, 'APP_WEBHOOK_ADDRESS_REFUSED');
        assert.equal(refusal?.data?.address, '127.0.0.1');
        return true;
      },
    );
    assert.equal(server.connections, 0);
  });

  it('refuses the loopback written in disguise in the connector too (decimal, IPv4-mapped, IPv4-compatible, NAT64)', async () => {
    const server = await receiver((_req, res) => res.end('ok'));
    const agent = dispatcher({ allowPrivate: false });
    for (const host of ['2130706433', '0x7f.1', '[::ffff:7f00:1]', '[::127.0.0.1]', '[64:ff9b::127.0.0.1]']) {
      await assert.rejects(
        agent.request({ origin: `http://${host}:${server.port}`, path: '/', method: 'POST', body: 'x' }),
        (error: unknown) => appErrorIn(error)?.code === 'APP_WEBHOOK_ADDRESS_REFUSED',
        host,
      );
    }
    assert.equal(server.connections, 0);
  });

  it('refuses a name whose answers include a refused address, before any connection', async () => {
    const server = await receiver((_req, res) => res.end('ok'));
    const agent = dispatcher({ allowPrivate: false, lookup: lookupAnswering('127.0.0.1') });
    await assert.rejects(
      agent.request({ origin: `http://hooks.example.test:${server.port}`, path: '/', method: 'POST', body: 'x' }),
      (error: unknown) => appErrorIn(error)?.code === 'APP_WEBHOOK_ADDRESS_REFUSED',
    );
    assert.equal(server.connections, 0);
  });

  it('connects TLS to the checked address but sends and validates the host name', async () => {
    let servername: string | false | null | undefined;
    const server = await receiver(
      (req, res) => {
        servername = (req.socket as TLSSocket).servername;
        res.end('secure');
      },
      { key: TLS_KEY, cert: TLS_CERT },
    );
    const agent = dispatcher({ allowPrivate: true, lookup: lookupAnswering('127.0.0.1'), ca: TLS_CERT });

    const response = await agent.request({
      origin: `https://hooks.example.test:${server.port}`,
      path: '/',
      method: 'POST',
      body: 'x',
    });
    assert.equal(await response.body.text(), 'secure');
    assert.equal(servername, 'hooks.example.test');

    // Same address, another name: the certificate does not match it, so the request fails.
    await assert.rejects(
      agent.request({ origin: `https://other.example.test:${server.port}`, path: '/', method: 'POST', body: 'x' }),
      (error: unknown) => (error as { code?: string }).code === 'ERR_TLS_CERT_ALTNAME_INVALID',
    );
    assert.equal(server.requests.length, 1);
  });

  it('keeps validating certificates: an untrusted certificate is refused', async () => {
    const server = await receiver((_req, res) => res.end('secure'), { key: TLS_KEY, cert: TLS_CERT });
    const agent = dispatcher({ allowPrivate: true, lookup: lookupAnswering('127.0.0.1') });
    await assert.rejects(
      agent.request({ origin: `https://hooks.example.test:${server.port}`, path: '/', method: 'POST', body: 'x' }),
      (error: unknown) =>
        /SELF_SIGNED|self.signed/i.test(`${(error as { code?: string }).code} ${(error as Error).message}`),
    );
    assert.equal(server.requests.length, 0);
  });
});
