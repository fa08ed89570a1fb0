import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../shared/errors/app-error.ts';
import {
  REFUSED_RANGES,
  bigIntToIp,
  checkAddress,
  checkWebhookUrl,
  ipToBigInt,
  resolveAndCheck,
  ruleLabel,
  type HostLookup,
  type RefusedRange,
} from '../../../shared/webhooks/address-rules.ts';

const isCode = (code: string, check?: (error: AppError) => void) => (error: unknown) => {
  assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
  assert.equal(error.code, code);
  assert.equal(error.status, 422);
  check?.(error);
  return true;
};

// The usual list (loopback, link-local, private, shared, unspecified, multicast, reserved,
// documentation and benchmarking ranges), written canonically.
const USUAL_RANGES = [
  '127.0.0.0/8',
  '::1/128',
  '169.254.0.0/16',
  'fe80::/10',
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  'fc00::/7',
  '100.64.0.0/10',
  '0.0.0.0/8',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '::/128',
  'ff00::/8',
  '192.0.2.0/24',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '198.18.0.0/15',
];
// Our additions: all of ::/8, the IPv6 forms that carry an IPv4 address, the special-purpose
// ranges no receiver is at (protocol assignments, relays, documentation, Teredo, site-local, discard,
// benchmarking, segment routing ids), and the one cloud metadata address that is public.
const EXTRA_RANGES = [
  '168.63.129.16/32',
  '::/8',
  '::/96',
  '::ffff:0:0/96',
  '2002::/16',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '192.0.0.0/24',
  '192.88.99.0/24',
  '2001:db8::/32',
  '2001::/32',
  'fec0::/10',
  '100::/64',
  '2001::/23',
  '2001:2::/48',
  '3fff::/20',
  '5f00::/16',
];

function bounds(range: RefusedRange) {
  const [address, prefixText] = range.cidr.split('/');
  const bits = range.family === 4 ? 32 : 128;
  const first = ipToBigInt(address)!;
  const last = first + (1n << BigInt(bits - Number(prefixText))) - 1n;
  const top = (1n << BigInt(bits)) - 1n;
  return {
    first: bigIntToIp(first, range.family),
    last: bigIntToIp(last, range.family),
    outside: [first - 1n, last + 1n].filter((v) => v >= 0n && v <= top).map((v) => bigIntToIp(v, range.family)),
    embed: (v4: string) => bigIntToIp(first | ipToBigInt(v4)!, 6),
  };
}

describe('REFUSED_RANGES', () => {
  it('holds exactly the usual list plus ::/8, the IPv4-embedding IPv6 ranges and the special-purpose ones', () => {
    assert.deepEqual(REFUSED_RANGES.map((r) => r.cidr).toSorted(), [...USUAL_RANGES, ...EXTRA_RANGES].toSorted());
  });

  it('declares each range with the family of its address', () => {
    for (const range of REFUSED_RANGES) {
      assert.equal(range.family, range.cidr.includes(':') ? 6 : 4, range.cidr);
    }
  });

  for (const range of REFUSED_RANGES.filter((r) => !r.embedsIpv4)) {
    it(`refuses the last address of ${range.cidr} by its own rule and the first at all`, () => {
      const { first, last } = bounds(range);
      assert.deepEqual(checkAddress(last), { ok: false, rule: ruleLabel(range) }, last);
      assert.equal(checkAddress(first).ok, false, first);
    });

    it(`does not apply the ${range.cidr} rule just outside it`, () => {
      for (const address of bounds(range).outside) {
        const verdict = checkAddress(address);
        assert.ok(verdict.ok || verdict.rule !== ruleLabel(range), `${address}: ${JSON.stringify(verdict)}`);
      }
    });
  }

  for (const range of REFUSED_RANGES.filter((r) => r.embedsIpv4)) {
    it(`judges the IPv4 address embedded in ${range.cidr} by the IPv4 rules`, () => {
      const { embed, outside } = bounds(range);
      const loopback = checkAddress(embed('127.0.0.1'));
      assert.equal(loopback.ok, false);
      assert.ok(!loopback.ok && loopback.rule.startsWith(ruleLabel(range)) && loopback.rule.includes('loopback'));
      assert.equal(checkAddress(embed('169.254.169.254')).ok, false);
      assert.equal(checkAddress(embed('10.1.2.3')).ok, false);
      assert.deepEqual(checkAddress(embed('8.8.8.8')), { ok: true });
      assert.deepEqual(checkAddress(embed('1.1.1.1')), { ok: true });
      for (const address of outside) {
        const verdict = checkAddress(address);
        assert.ok(verdict.ok || !verdict.rule.startsWith(ruleLabel(range)), `${address}: ${JSON.stringify(verdict)}`);
      }
    });
  }
});

describe('checkAddress', () => {
  const refused = [
    '127.0.0.1',
    '0.0.0.0',
    '169.254.169.254',
    '::1',
    '::',
    'fe80::1',
    '::ffff:127.0.0.1',
    '64:ff9b::7f00:1',
    '::ffff:169.254.169.254',
    '::127.0.0.1',
    '::8.8.8.8',
    '2002:808:808::1',
    '64:ff9b:1::808:808',
    'fd00::1',
    'ff02::1',
    '255.255.255.255',
    '[::1]',
    'fe80::1%eth0',
    '2001:2::1',
    '2001:10::1',
    '2001:1ff::1',
    '3fff::1',
    '5f00::1',
    '168.63.129.16',
    '::ffff:168.63.129.16',
  ];
  for (const address of refused) {
    it(`refuses ${address}`, () => assert.equal(checkAddress(address).ok, false));
  }

  const allowed = [
    '8.8.8.8',
    '1.1.1.1',
    '2606:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '11.0.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '192.0.3.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '100:0:0:1::1',
    '2001:4860:4860::8888',
    '2001:200::1',
    '3ffe:ffff::1',
    '4000::1',
    '5f01::1',
  ];
  for (const address of allowed) {
    it(`allows the public address ${address}`, () => assert.deepEqual(checkAddress(address), { ok: true }));
  }

  it('refuses what is not an IP address', () => {
    assert.deepEqual(checkAddress('example.com'), { ok: false, rule: 'not an IP address' });
    assert.equal(checkAddress('127.1').ok, false);
  });
});

describe('ipToBigInt and bigIntToIp', () => {
  it('round-trip IPv4 and IPv6 (including a trailing dotted quad) to the same value', () => {
    assert.equal(ipToBigInt('1.2.3.4'), 0x01020304n);
    assert.equal(ipToBigInt('::ffff:1.2.3.4'), 0xffff01020304n);
    assert.equal(ipToBigInt('1::'), 1n << 112n);
    assert.equal(ipToBigInt('1:2:3:4:5:6:7:8'), 0x00010002000300040005000600070008n);
    assert.equal(bigIntToIp(0x01020304n, 4), '1.2.3.4');
    assert.equal(ipToBigInt(bigIntToIp(0xfe80000000000000000000000000abcdn, 6)), 0xfe80000000000000000000000000abcdn);
    assert.equal(ipToBigInt('not-an-ip'), null);
  });
});

describe('checkWebhookUrl', () => {
  const strict = { allowHttp: false, allowPrivate: false };
  const lenient = { allowHttp: true, allowPrivate: true };

  it('answers the parsed URL of an acceptable https url', () => {
    const url = checkWebhookUrl('https://hooks.example.com/in?x=1', strict);
    assert.equal(url.hostname, 'hooks.example.com');
    assert.equal(url.search, '?x=1');
  });

  it('a refused loopback receiver names webhooks.allowPrivate and says every process needs it', () => {
    assert.throws(
      () => checkWebhookUrl('https://127.0.0.1:8443/hook', strict),
      isCode('APP_WEBHOOK_ADDRESS_REFUSED', (e) => {
        assert.equal(e.data?.setting, 'webhooks.allowPrivate');
        assert.match(
          e.message,
          /APP_WEBHOOKS__ALLOW_PRIVATE=true for the web process, the CLI and the worker \(npm start -- --allow-local/,
        );
      }),
    );
  });

  it('refuses http unless allowHttp', () => {
    assert.throws(
      () => checkWebhookUrl('http://hooks.example.com/', strict),
      isCode('APP_WEBHOOK_URL_INVALID', (e) => {
        assert.deepEqual(e.data, {
          field: 'url',
          value: 'http://hooks.example.com/',
          reason: 'scheme http is not allowed (https, amqps, tls, mqtts, rediss only)',
          setting: 'webhooks.allowHttp',
        });
        // the message names the setting, and that the worker needs it too
        assert.match(
          e.message,
          /APP_WEBHOOKS__ALLOW_HTTP=true for the web process, the CLI and the worker \(npm start -- --allow-local/,
        );
      }),
    );
    assert.equal(checkWebhookUrl('http://hooks.example.com/', { ...strict, allowHttp: true }).protocol, 'http:');
  });

  for (const raw of ['javascript:alert(1)', 'file:///etc/passwd', 'ftp://files.example.com/', 'data:text/plain,x']) {
    it(`refuses the scheme of ${raw} even with allowHttp and allowPrivate`, () => {
      assert.throws(() => checkWebhookUrl(raw, lenient), isCode('APP_WEBHOOK_URL_INVALID'));
    });
  }

  it('refuses an unparseable url', () => {
    assert.throws(() => checkWebhookUrl('not a url', lenient), isCode('APP_WEBHOOK_URL_INVALID'));
    assert.throws(() => checkWebhookUrl('https://exa mple.com/', lenient), isCode('APP_WEBHOOK_URL_INVALID'));
  });

  it('reads a url as the WHATWG parser does: surrounding spaces and controls, tabs and newlines do not count', () => {
    // a url pasted with a space or a newline around it: the parser drops them, so must the host check
    for (const raw of [
      ' https://hooks.example.com/a',
      'https://hooks.example.com/a\n',
      '\thttps://hooks.exa\nmple.com/a ',
    ]) {
      assert.equal(checkWebhookUrl(raw, lenient).href, 'https://hooks.example.com/a', JSON.stringify(raw));
    }
    assert.throws(
      () => checkWebhookUrl(' https:///nohost', lenient),
      isCode('APP_WEBHOOK_URL_INVALID', (e) => assert.equal(e.data?.reason, 'missing host')),
    );
    // a refusal never echoes a password, whatever surrounds the url
    for (const raw of [' https://user:secret-pw@hooks.example.com/', 'ht\ttps://user:secret-pw@hooks.example.com/']) {
      assert.throws(
        () => checkWebhookUrl(raw, lenient),
        isCode('APP_WEBHOOK_URL_INVALID', (e) => {
          assert.equal(e.data?.reason, 'credentials are not allowed in the url');
          assert.doesNotMatch(JSON.stringify(e.data), /secret-pw/);
        }),
      );
    }
  });

  it('a url refused as unparseable never echoes a password holding /, ? or #: all up to its last @ is masked', () => {
    for (const raw of ['https://user:pw#1@hooks.example.com/', 'amqp://user:p/w?2@mq.example.com/vh']) {
      assert.throws(
        () => checkWebhookUrl(raw, lenient),
        isCode('APP_WEBHOOK_URL_INVALID', (e) => {
          assert.match(String(e.data?.value), /^(https|amqp):\/\/\*\*\*@/);
          assert.doesNotMatch(JSON.stringify(e.data) + e.message, /pw#1|p\/w\?2/);
        }),
      );
    }
  });

  for (const raw of ['https:///nohost', 'https:nohost.example.com', 'https:\\\\evil.example.com/']) {
    it(`refuses ${raw} as having no host after //`, () => {
      assert.throws(
        () => checkWebhookUrl(raw, lenient),
        isCode('APP_WEBHOOK_URL_INVALID', (e) => assert.equal(e.data?.reason, 'missing host')),
      );
    });
  }

  for (const raw of [
    'https://user:pass@host.example.com/',
    'https://user@host.example.com/',
    'https://@host.example.com/',
  ]) {
    it(`refuses credentials in ${raw} without echoing them`, () => {
      assert.throws(
        () => checkWebhookUrl(raw, lenient),
        isCode('APP_WEBHOOK_URL_INVALID', (e) => {
          assert.equal(e.data?.value, 'https://***@host.example.com/');
          assert.doesNotMatch(e.message, /pass/);
        }),
      );
    });
  }

  const literals: [string, string][] = [
    ['https://localhost/', 'localhost'],
    ['https://LOCALHOST./', 'localhost.'],
    ['https://api.localhost/', 'api.localhost'],
    ['https://127.1/', '127.0.0.1'],
    ['https://0x7f.1/', '127.0.0.1'],
    ['https://2130706433/', '127.0.0.1'],
    ['https://[::1]/', '::1'],
    ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['https://0.0.0.0/', '0.0.0.0'],
    ['https://[::]/', '::'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['https://[fe80::1]/', 'fe80::1'],
    ['https://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1'],
    ['https://10.0.0.1:8443/', '10.0.0.1'],
    ['https://0177.0.0.1/', '127.0.0.1'],
    ['https://127.0.0.1./', '127.0.0.1'],
    ['https://0/', '0.0.0.0'],
    ['https://[::ffff:7f00:1]/', '::ffff:7f00:1'],
    ['https://[::127.0.0.1]/', '::7f00:1'],
    ['https://[64:ff9b::10.0.0.1]/', '64:ff9b::a00:1'],
    ['https://[64:ff9b::a9fe:a9fe]/', '64:ff9b::a9fe:a9fe'],
  ];
  for (const [raw, address] of literals) {
    it(`refuses the address of ${raw} unless allowPrivate`, () => {
      assert.throws(
        () => checkWebhookUrl(raw, strict),
        isCode('APP_WEBHOOK_ADDRESS_REFUSED', (e) => {
          assert.equal(e.data?.address, address);
          assert.equal(typeof e.data?.rule, 'string');
          assert.equal(e.data?.field, 'url');
        }),
      );
      assert.ok(checkWebhookUrl(raw, { ...strict, allowPrivate: true }) instanceof URL);
    });
  }

  for (const raw of ['https://8.8.8.8/', 'https://[2606:4700::1111]/', 'https://[::ffff:8.8.8.8]/']) {
    it(`allows the public IP literal ${raw}`, () => {
      assert.ok(checkWebhookUrl(raw, strict) instanceof URL);
    });
  }
});

describe('resolveAndCheck', () => {
  const answering = (...addresses: string[]): HostLookup & { calls: string[] } => {
    const calls: string[] = [];
    const lookup = async (hostname: string) => {
      calls.push(hostname);
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    return Object.assign(lookup, { calls });
  };

  it('answers every address of a name that resolves only to public addresses, resolving once', async () => {
    const lookup = answering('8.8.8.8', '2606:4700::1111');
    const addresses = await resolveAndCheck('hooks.example.test', { allowPrivate: false, lookup });
    assert.deepEqual(addresses, [
      { address: '8.8.8.8', family: 4 },
      { address: '2606:4700::1111', family: 6 },
    ]);
    assert.deepEqual(lookup.calls, ['hooks.example.test']);
  });

  it('refuses the whole name when one answer among public ones is refused', async () => {
    await assert.rejects(
      resolveAndCheck('hooks.example.test', { allowPrivate: false, lookup: answering('8.8.8.8', '10.0.0.5') }),
      isCode('APP_WEBHOOK_ADDRESS_REFUSED', (e) => {
        assert.equal(e.data?.address, '10.0.0.5');
        assert.equal(e.data?.host, 'hooks.example.test');
        assert.equal(e.data?.rule, 'private, RFC 1918 (10.0.0.0/8)');
      }),
    );
  });

  it('lifts every address rule with allowPrivate', async () => {
    const lookup = answering('127.0.0.1', '::1', '169.254.169.254', '10.0.0.1');
    const addresses = await resolveAndCheck('hooks.example.test', { allowPrivate: true, lookup });
    assert.equal(addresses.length, 4);
    assert.deepEqual(await resolveAndCheck('[::1]', { allowPrivate: true }), [{ address: '::1', family: 6 }]);
  });

  it('refuses localhost by name, and every address the real resolver gives it is refused too', async () => {
    await assert.rejects(resolveAndCheck('localhost', { allowPrivate: false }), isCode('APP_WEBHOOK_ADDRESS_REFUSED'));
    const resolved = await resolveAndCheck('localhost', { allowPrivate: true });
    assert.ok(resolved.length > 0);
    for (const { address } of resolved) assert.equal(checkAddress(address).ok, false, address);
  });

  it('checks an IP literal without resolving it', async () => {
    const lookup = answering('8.8.8.8');
    await assert.rejects(
      resolveAndCheck('[::1]', { allowPrivate: false, lookup }),
      isCode('APP_WEBHOOK_ADDRESS_REFUSED'),
    );
    assert.deepEqual(await resolveAndCheck('8.8.8.8', { allowPrivate: false, lookup }), [
      { address: '8.8.8.8', family: 4 },
    ]);
    assert.deepEqual(lookup.calls, []);
  });

  it('answers APP_WEBHOOK_HOST_UNRESOLVABLE for a name that does not resolve or resolves to nothing', async () => {
    const failing: HostLookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
    };
    await assert.rejects(
      resolveAndCheck('nowhere.invalid', { allowPrivate: false, lookup: failing }),
      isCode('APP_WEBHOOK_HOST_UNRESOLVABLE', (e) =>
        assert.deepEqual(e.data, { host: 'nowhere.invalid', reason: 'ENOTFOUND' }),
      ),
    );
    await assert.rejects(
      resolveAndCheck('empty.example.test', { allowPrivate: true, lookup: answering() }),
      isCode('APP_WEBHOOK_HOST_UNRESOLVABLE'),
    );
  });
});
