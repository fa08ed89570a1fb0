import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, type TestDatabase } from '../../../helpers/database.ts';
import { appError, captureLogger, depsOf, scriptedLookup } from '../fixtures.ts';
import {
  listEndpoints,
  registerEndpoint,
  revealEndpoint,
  showEndpoint,
} from '../../../../shared/webhooks/endpoints/index.ts';
import { actorOf, OPERATOR } from '../../../../shared/access/actor.ts';
import { emit } from '../../../../shared/webhooks/events/emit.ts';

const db: TestDatabase = await createTestDatabase();

const strict = { webhooks: { allowHttp: false, allowPrivate: false } };
const lookup = scriptedLookup({
  'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'internal.example.com': ['10.0.0.5'],
  'metadata.example.com': ['169.254.169.254'],
  'loop.example.com': ['127.0.0.1'],
  'mixed.example.com': ['93.184.215.14', '192.168.1.10'],
  'v6local.example.com': ['fe80::1'],
  'mapped.example.com': ['::ffff:127.0.0.1'],
});
const strictDeps = () => depsOf(db, strict, { lookup });
const endpointCount = async () => (await db.sql<{ n: number }[]>`select count(*)::int as n from app_webhooks`)[0].n;

describe('register: the endpoint and its secret', () => {
  it('answers the endpoint with an ep_ id and a whsec_ secret of 32 random bytes', async () => {
    const endpoint = await registerEndpoint(strictDeps(), OPERATOR, {
      url: 'https://hooks.example.com/in',
      events: ['order.*', 'invoice.paid'],
      owner: 'acme',
      description: 'orders',
      headers: { 'X-Api-Key': 'k1' },
    });
    assert.match(endpoint.id, /^ep_[0-9A-Z]{26}$/);
    assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(endpoint.secret.slice(6), 'base64').length, 32);
    assert.equal(endpoint.url, 'https://hooks.example.com/in');
    assert.deepEqual(endpoint.events, ['order.*', 'invoice.paid']);
    assert.equal(endpoint.owner, 'acme');
    assert.equal(endpoint.description, 'orders');
    assert.deepEqual(endpoint.headers, { 'X-Api-Key': 'k1' });
    assert.equal(endpoint.enabled, true);
  });

  it('gives every endpoint its own secret', async () => {
    const a = await registerEndpoint(strictDeps(), OPERATOR, { url: 'https://hooks.example.com/a', events: ['*'] });
    const b = await registerEndpoint(strictDeps(), OPERATOR, { url: 'https://hooks.example.com/b', events: ['*'] });
    assert.notEqual(a.secret, b.secret);
    assert.notEqual(a.id, b.id);
  });

  it('never shows the secret again, except through show with reveal', async () => {
    const endpoint = await registerEndpoint(strictDeps(), OPERATOR, {
      url: 'https://hooks.example.com/once',
      events: ['a.b'],
    });
    const listed = (await listEndpoints(strictDeps(), OPERATOR)).records.find((e) => e.id === endpoint.id);
    assert.ok(listed);
    assert.ok(!JSON.stringify(listed).includes(endpoint.secret));
    const shown = await showEndpoint(strictDeps(), OPERATOR, endpoint.id);
    assert.ok(!JSON.stringify(shown).includes(endpoint.secret));
    const revealed = await revealEndpoint(strictDeps(), OPERATOR, endpoint.id);
    assert.deepEqual(
      revealed.secrets.map((s) => ('secret' in s ? s.secret : null)),
      [endpoint.secret],
    );
  });

  it('stores the url in its WHATWG serialisation', async () => {
    const endpoint = await registerEndpoint(strictDeps(), OPERATOR, {
      url: 'HTTPS://Hooks.Example.COM:443/a/../in',
      events: ['*'],
    });
    assert.equal(endpoint.url, 'https://hooks.example.com/in');
  });

  it('drops duplicate event patterns, keeping their order', async () => {
    const endpoint = await registerEndpoint(strictDeps(), OPERATOR, {
      url: 'https://hooks.example.com/d',
      events: ['b.*', 'a', 'b.*'],
    });
    assert.deepEqual(endpoint.events, ['b.*', 'a']);
  });
});

describe('register: url rules (refused at registration, nothing written)', () => {
  const shapeCases: [string, unknown][] = [
    ['http:// without webhooks.allowHttp', 'http://hooks.example.com/in'],
    ['credentials in the url', 'https://user:pass@hooks.example.com/'],
    ['a user name alone', 'https://user@hooks.example.com/'],
    ['no host', 'https:///in'],
    ['not a url', 'hooks.example.com/in'],
    ['the javascript: scheme', 'javascript:alert(1)'],
    ['the file: scheme', 'file:///etc/passwd'],
    ['the ftp: scheme', 'ftp://hooks.example.com/'],
    ['an empty string', ''],
    ['not a string', 42],
  ];
  for (const [name, url] of shapeCases) {
    it(`refuses ${name} with APP_WEBHOOK_URL_INVALID`, async () => {
      const before = await endpointCount();
      await assert.rejects(
        registerEndpoint(strictDeps(), OPERATOR, { url: url as string, events: ['*'] }),
        appError('APP_WEBHOOK_URL_INVALID', 422, (e) => {
          assert.equal(e.data?.field, 'url');
        }),
      );
      assert.equal(await endpointCount(), before);
    });
  }

  it('does not echo the password of a refused url', async () => {
    await assert.rejects(
      registerEndpoint(strictDeps(), OPERATOR, { url: 'https://user:hunter2@hooks.example.com/', events: ['*'] }),
      (error: Error & { data?: unknown }) => {
        assert.ok(!error.message.includes('hunter2'));
        assert.ok(!JSON.stringify(error.data).includes('hunter2'));
        return true;
      },
    );
  });

  const literalHosts = [
    'localhost',
    'api.localhost',
    '127.1',
    '0x7f.1',
    '2130706433',
    '127.0.0.1',
    '[::1]',
    '[::ffff:127.0.0.1]',
    '0.0.0.0',
    '[::]',
    '10.1.2.3',
    '169.254.169.254',
    '[fe80::1]',
    '192.168.0.1',
    '100.64.0.1',
  ];
  for (const host of literalHosts) {
    it(`refuses the host ${host} with APP_WEBHOOK_ADDRESS_REFUSED`, async () => {
      const before = await endpointCount();
      await assert.rejects(
        registerEndpoint(strictDeps(), OPERATOR, { url: `https://${host}/hook`, events: ['*'] }),
        appError('APP_WEBHOOK_ADDRESS_REFUSED', 422),
      );
      assert.equal(await endpointCount(), before);
    });
  }

  const resolvedCases: [string, string][] = [
    ['internal.example.com', '10.0.0.5'],
    ['metadata.example.com', '169.254.169.254'],
    ['loop.example.com', '127.0.0.1'],
    ['mixed.example.com', '192.168.1.10'],
    ['v6local.example.com', 'fe80::1'],
    ['mapped.example.com', '::ffff:127.0.0.1'],
  ];
  for (const [host, address] of resolvedCases) {
    it(`refuses ${host}, which resolves to ${address} (one refused answer refuses the name)`, async () => {
      await assert.rejects(
        registerEndpoint(strictDeps(), OPERATOR, { url: `https://${host}/hook`, events: ['*'] }),
        appError('APP_WEBHOOK_ADDRESS_REFUSED', 422, (e) => {
          assert.equal(e.data?.address, address);
        }),
      );
    });
  }

  it('accepts a name that does not resolve now, with a warning in the log (the worker checks at every request)', async () => {
    const capture = captureLogger(db.config);
    const endpoint = await registerEndpoint({ ...strictDeps(), log: capture.log }, OPERATOR, {
      url: 'https://not-yet.example.com/hook',
      events: ['*'],
    });
    assert.equal(endpoint.url, 'https://not-yet.example.com/hook');
    const warning = capture.lines().find((line) => line.level === 40);
    assert.ok(warning, capture.text());
    assert.match(String(warning.msg), /not-yet\.example\.com does not resolve/);
  });

  it('accepts private and loopback receivers with webhooks.allowPrivate and http with webhooks.allowHttp', async () => {
    const deps = depsOf(db, { webhooks: { allowHttp: true, allowPrivate: true } }, { lookup });
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'https://[::1]/hook',
      'https://internal.example.com/hook',
    ]) {
      const endpoint = await registerEndpoint(deps, OPERATOR, { url, events: ['*'] });
      assert.equal(endpoint.enabled, true);
    }
  });
});

describe('register: event patterns', () => {
  const refused: [string, unknown][] = [
    ['a*', ['a*']],
    ['*.b', ['*.b']],
    ['a.*.c', ['a.*.c']],
    ['an empty string', ['']],
    ['**', ['**']],
    ['a.', ['a.']],
    ['.a', ['.a']],
    ['a..b', ['a..b']],
    ['a space', ['a b']],
    ['an empty list', []],
    ['not a list', 'a.b'],
    ['a non-string entry', [1]],
    ['one bad entry among good ones', ['a.b', 'c*']],
  ];
  for (const [name, events] of refused) {
    it(`refuses ${name} with APP_WEBHOOK_EVENTS_INVALID`, async () => {
      await assert.rejects(
        registerEndpoint(strictDeps(), OPERATOR, { url: 'https://hooks.example.com/e', events: events as string[] }),
        appError('APP_WEBHOOK_EVENTS_INVALID', 422, (e) => {
          assert.equal(e.data?.field, 'events');
        }),
      );
    });
  }
  it('accepts exact names, families and *', async () => {
    const endpoint = await registerEndpoint(strictDeps(), OPERATOR, {
      url: 'https://hooks.example.com/e',
      events: ['order.created', 'order.*', 'a.b.*', '*', 'x_y-z'],
    });
    assert.deepEqual(endpoint.events, ['order.created', 'order.*', 'a.b.*', '*', 'x_y-z']);
  });
});

describe('register: headers', () => {
  const reserved = ['webhook-id', 'Webhook-Timestamp', 'WEBHOOK-SIGNATURE', 'Content-Type', 'user-agent', 'USER-AGENT'];
  const hopByHop = [
    'Connection',
    'keep-alive',
    'Proxy-Authorization',
    'proxy-connection',
    'PROXY-anything',
    'TE',
    'Trailer',
    'Transfer-Encoding',
    'upgrade',
    'Host',
    'content-length',
    'Keep-Alive',
  ];
  for (const name of reserved) {
    it(`refuses the reserved name ${name} (any letter case)`, async () => {
      await assert.rejects(
        registerEndpoint(strictDeps(), OPERATOR, {
          url: 'https://hooks.example.com/h',
          events: ['*'],
          headers: { [name]: 'x' },
        }),
        appError('APP_WEBHOOK_HEADERS_INVALID', 422, (e) => {
          assert.equal(e.data?.field, 'headers');
          assert.equal(e.data?.rule, 'reserved');
          assert.equal(e.data?.name, name);
        }),
      );
    });
  }
  for (const name of hopByHop) {
    it(`refuses the hop-by-hop name ${name}`, async () => {
      await assert.rejects(
        registerEndpoint(strictDeps(), OPERATOR, {
          url: 'https://hooks.example.com/h',
          events: ['*'],
          headers: { [name]: 'x' },
        }),
        appError('APP_WEBHOOK_HEADERS_INVALID', 422, (e) => assert.equal(e.data?.rule, 'hop-by-hop')),
      );
    });
  }
  for (const [name, value] of [
    ['CR', 'a\rb'],
    ['LF', 'a\nb'],
    ['CRLF injection', 'x\r\nX-Evil: 1'],
    ['NUL', 'a\0b'],
  ]) {
    it(`refuses a header value with ${name}`, async () => {
      await assert.rejects(
        registerEndpoint(strictDeps(), OPERATOR, {
          url: 'https://hooks.example.com/h',
          events: ['*'],
          headers: { 'X-Ok': value },
        }),
        appError('APP_WEBHOOK_HEADERS_INVALID', 422, (e) => assert.equal(e.data?.rule, 'value')),
      );
    });
  }
  for (const name of ['X Bad', 'X-Bad:', 'X-Bäd', '', 'X-Bad\r\n']) {
    it(`refuses the header name ${JSON.stringify(name)}, which is not an HTTP token`, async () => {
      await assert.rejects(
        registerEndpoint(strictDeps(), OPERATOR, {
          url: 'https://hooks.example.com/h',
          events: ['*'],
          headers: { [name]: 'x' },
        }),
        appError('APP_WEBHOOK_HEADERS_INVALID', 422, (e) => assert.equal(e.data?.rule, 'name')),
      );
    });
  }
  it('refuses the same name twice in another letter case', async () => {
    await assert.rejects(
      registerEndpoint(strictDeps(), OPERATOR, {
        url: 'https://hooks.example.com/h',
        events: ['*'],
        headers: { 'X-A': '1', 'x-a': '2' },
      }),
      appError('APP_WEBHOOK_HEADERS_INVALID', 422, (e) => assert.equal(e.data?.rule, 'duplicate')),
    );
  });
  it('refuses a non-string value and a non-object map', async () => {
    await assert.rejects(
      registerEndpoint(strictDeps(), OPERATOR, {
        url: 'https://hooks.example.com/h',
        events: ['*'],
        headers: { 'X-A': 1 as unknown as string },
      }),
      appError('APP_WEBHOOK_HEADERS_INVALID'),
    );
    await assert.rejects(
      registerEndpoint(strictDeps(), OPERATOR, {
        url: 'https://hooks.example.com/h',
        events: ['*'],
        headers: ['X-A: 1'] as unknown as Record<string, string>,
      }),
      appError('APP_WEBHOOK_HEADERS_INVALID'),
    );
  });
  it('keeps receiver headers with tabs and visible characters', async () => {
    const endpoint = await registerEndpoint(strictDeps(), OPERATOR, {
      url: 'https://hooks.example.com/h',
      events: ['*'],
      headers: { Authorization: 'Bearer abc.def', 'X-Tab': 'a\tb' },
    });
    assert.deepEqual(endpoint.headers, { Authorization: 'Bearer abc.def', 'X-Tab': 'a\tb' });
  });
});

describe('register: owner and description', () => {
  for (const [name, owner] of [
    ['an empty owner', ''],
    ['a non-string owner', 7],
    ['an owner with a newline', 'a\nb'],
    ['an owner of 256 characters', 'o'.repeat(256)],
    ['an owner with a trailing space', 'acme '],
    ['an owner with a leading space', ' acme'],
    ['an owner with a C1 control character (CSI)', 'acme\u009b31m'],
    ['an owner with NEL (U+0085)', 'acme\u0085'],
  ] as const) {
    it(`refuses ${name} with APP_WEBHOOK_OWNER_INVALID`, async () => {
      await assert.rejects(
        registerEndpoint(strictDeps(), OPERATOR, {
          url: 'https://hooks.example.com/o',
          events: ['*'],
          owner: owner as string,
        }),
        appError('APP_WEBHOOK_OWNER_INVALID', 422),
      );
    });
  }
  it('refuses a description longer than 1000 characters with APP_WEBHOOK_DESCRIPTION_INVALID', async () => {
    await assert.rejects(
      registerEndpoint(strictDeps(), OPERATOR, {
        url: 'https://hooks.example.com/o',
        events: ['*'],
        description: 'd'.repeat(1001),
      }),
      appError('APP_WEBHOOK_DESCRIPTION_INVALID', 422),
    );
  });
  it('stores no owner as null', async () => {
    const endpoint = await registerEndpoint(strictDeps(), OPERATOR, {
      url: 'https://hooks.example.com/o',
      events: ['*'],
    });
    assert.equal(endpoint.owner, null);
    assert.equal(endpoint.description, null);
    assert.deepEqual(endpoint.headers, {});
  });
});

describe('register: owners stored before the whitespace rule', () => {
  it('an endpoint stored with the owner "acme " is still listed, shown and filtered by it', async () => {
    const endpoint = await registerEndpoint(strictDeps(), OPERATOR, {
      url: 'https://hooks.example.com/padded',
      events: ['*'],
      owner: 'acme-padded',
    });
    // as a release that accepted it wrote it
    await db.sql`update app_webhooks set owner = 'acme-padded ' where id = ${endpoint.id}`;
    await assert.rejects(
      registerEndpoint(strictDeps(), OPERATOR, {
        url: 'https://hooks.example.com/p2',
        events: ['*'],
        owner: 'acme-padded ',
      }),
      appError('APP_WEBHOOK_OWNER_INVALID', 422),
    );
    const listed = await listEndpoints(strictDeps(), OPERATOR, { owner: 'acme-padded ' });
    assert.deepEqual(
      listed.records.map((item) => [item.id, item.owner]),
      [[endpoint.id, 'acme-padded ']],
    );
    assert.equal((await showEndpoint(strictDeps(), OPERATOR, endpoint.id)).owner, 'acme-padded ');
  });

  it('its emits still reach it, and its own member still registers under it', async () => {
    const endpoint = await registerEndpoint(strictDeps(), OPERATOR, {
      url: 'https://hooks.example.com/padded-emit',
      events: ['padded.*'],
      owner: 'acme-kept',
    });
    await db.sql`update app_webhooks set owner = 'acme-kept ' where id = ${endpoint.id}`;
    const deliveries = await emit(strictDeps(), 'padded.created', {}, { owner: 'acme-kept ' });
    assert.deepEqual(
      deliveries.map((delivery) => delivery.endpointId),
      [endpoint.id],
    );
    const member = actorOf({ id: 'tok_padded', roles: ['member'], owner: 'acme-kept ' });
    const own = await registerEndpoint(strictDeps(), member, {
      url: 'https://hooks.example.com/padded-own',
      events: ['*'],
    });
    assert.equal(own.owner, 'acme-kept ');
  });
});
