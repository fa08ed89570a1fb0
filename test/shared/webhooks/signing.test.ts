import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { AppError } from '../../../shared/errors/app-error.ts';
import {
  generateSecret,
  secretKey,
  sign,
  signatureFor,
  signedHeaders,
  verify,
} from '../../../shared/webhooks/signing.ts';

// The Standard Webhooks reference test vector.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const VECTOR_NOW = new Date(VECTOR.timestamp * 1000);
const VECTOR_HEADERS = {
  'webhook-id': VECTOR.id,
  'webhook-timestamp': String(VECTOR.timestamp),
  'webhook-signature': VECTOR.signature,
};

const isCode = (code: string) => (error: unknown) => {
  assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
  assert.equal(error.code, code);
  return true;
};

describe('generateSecret', () => {
  it('answers whsec_ followed by base64 of 32 random bytes', () => {
    const secret = generateSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(secretKey(secret).length, 32);
  });

  it('answers a different secret each call', () => {
    assert.notEqual(generateSecret(), generateSecret());
  });
});

describe('secretKey', () => {
  it('decodes the base64 after the whsec_ prefix', () => {
    assert.deepEqual(secretKey('whsec_AAECAw=='), Buffer.from([0, 1, 2, 3]));
  });

  it('accepts a secret without the whsec_ prefix (the prefix is only a label)', () => {
    assert.deepEqual(secretKey('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'), secretKey(VECTOR.secret));
  });

  for (const [label, secret] of [
    ['an empty string', ''],
    ['the prefix alone', 'whsec_'],
    ['characters outside base64', 'whsec_not base64!'],
    ['base64url characters', 'whsec_ab-_'],
    ['an impossible base64 length', 'whsec_AAAAA'],
    ['padding alone', 'whsec_=='],
  ] as const) {
    it(`refuses ${label} with 400 APP_WEBHOOK_SECRET_INVALID`, () => {
      assert.throws(
        () => secretKey(secret),
        (error: unknown) => isCode('APP_WEBHOOK_SECRET_INVALID')(error) && (error as AppError).status === 400,
      );
    });
  }
});

describe('signatureFor and sign', () => {
  it('reproduces the Standard Webhooks test vector', () => {
    assert.equal(signatureFor(VECTOR), VECTOR.signature);
  });

  it('signs a Buffer body the same as the same text', () => {
    assert.equal(signatureFor({ ...VECTOR, body: Buffer.from(VECTOR.body, 'utf8') }), VECTOR.signature);
  });

  it('signs non-ASCII bodies as UTF-8 bytes', () => {
    const body = '{"name":"Zoë ✓"}';
    const secret = generateSecret();
    const input = { id: 'msg_1', timestamp: 1700000000, body, secret };
    assert.equal(signatureFor(input), signatureFor({ ...input, body: new TextEncoder().encode(body) }));
  });

  it('gives one space-separated v1 entry per secret, in order', () => {
    const other = generateSecret();
    const header = sign({ ...VECTOR, secrets: [VECTOR.secret, other] });
    assert.deepEqual(header.split(' '), [VECTOR.signature, signatureFor({ ...VECTOR, secret: other })]);
  });

  it('refuses to sign without any secret', () => {
    assert.throws(
      () => sign({ ...VECTOR, secrets: [] }),
      (error: unknown) => error instanceof AppError,
    );
  });

  for (const timestamp of [1614265330.5, -1, Number.NaN]) {
    it(`refuses a timestamp that is not integer seconds (${timestamp})`, () => {
      assert.throws(
        () => signatureFor({ ...VECTOR, timestamp }),
        (error: unknown) => error instanceof AppError,
      );
    });
  }

  it('signedHeaders answers the three webhook headers', () => {
    assert.deepEqual(signedHeaders({ ...VECTOR, secrets: [VECTOR.secret] }), VECTOR_HEADERS);
  });
});

describe('interoperability with the standardwebhooks library', () => {
  const body = JSON.stringify({ data: { n: 1 }, id: 'msg_abc', timestamp: new Date().toISOString(), type: 'a.b' });

  it('the library verifies headers signed by us with one secret', () => {
    const secret = generateSecret();
    const headers = signedHeaders({ id: 'msg_abc', timestamp: Math.floor(Date.now() / 1000), body, secrets: [secret] });
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  });

  it('the library verifies headers signed by us with two secrets, with either secret', () => {
    const [first, second] = [generateSecret(), generateSecret()];
    const headers = signedHeaders({
      id: 'msg_abc',
      timestamp: Math.floor(Date.now() / 1000),
      body,
      secrets: [first, second],
    });
    assert.deepEqual(new Webhook(first).verify(body, headers), JSON.parse(body));
    assert.deepEqual(new Webhook(second).verify(body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(generateSecret()).verify(body, headers), /No matching signature/);
  });

  it('our verify accepts a signature made by the library', () => {
    const secret = generateSecret();
    const now = new Date();
    const signature = new Webhook(secret).sign('msg_lib', now, body);
    const headers = {
      'webhook-id': 'msg_lib',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signature,
    };
    assert.deepEqual(verify({ body, headers, secret }), { ok: true });
    assert.deepEqual(verify({ body, headers, secret: generateSecret() }), {
      ok: false,
      reason: 'no-matching-signature',
    });
  });
});

describe('verify (receiver rules)', () => {
  it('accepts the test vector at its own time', () => {
    assert.deepEqual(verify({ body: VECTOR.body, headers: VECTOR_HEADERS, secret: VECTOR.secret, now: VECTOR_NOW }), {
      ok: true,
    });
  });

  it('accepts a Headers object read through .get', () => {
    const headers = new Headers(VECTOR_HEADERS);
    assert.deepEqual(verify({ body: VECTOR.body, headers, secret: VECTOR.secret, now: VECTOR_NOW }), { ok: true });
  });

  it('accepts the raw body as bytes', () => {
    const body = Buffer.from(VECTOR.body, 'utf8');
    assert.deepEqual(verify({ body, headers: VECTOR_HEADERS, secret: VECTOR.secret, now: VECTOR_NOW }), { ok: true });
  });

  it('accepts `now` as epoch milliseconds', () => {
    const now = VECTOR_NOW.getTime();
    assert.deepEqual(verify({ body: VECTOR.body, headers: VECTOR_HEADERS, secret: VECTOR.secret, now }), { ok: true });
  });

  const other = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
  const [validEntry] = VECTOR.signature.split(' ');
  const otherEntry = signatureFor({ ...VECTOR, secret: other });
  const t = VECTOR.timestamp;

  const cases: Array<{
    rule: string;
    headers?: Record<string, string | undefined>;
    body?: string;
    now?: number;
    secret?: string;
    toleranceSeconds?: number;
    expected: { ok: true } | { ok: false; reason: string };
  }> = [
    {
      rule: 'rejects a delivery without webhook-id',
      headers: { 'webhook-id': undefined },
      expected: { ok: false, reason: 'missing-header' },
    },
    {
      rule: 'rejects a delivery without webhook-timestamp',
      headers: { 'webhook-timestamp': undefined },
      expected: { ok: false, reason: 'missing-header' },
    },
    {
      rule: 'rejects a delivery without webhook-signature',
      headers: { 'webhook-signature': undefined },
      expected: { ok: false, reason: 'missing-header' },
    },
    {
      rule: 'rejects an empty webhook-id as missing',
      headers: { 'webhook-id': '' },
      expected: { ok: false, reason: 'missing-header' },
    },
    { rule: 'accepts a timestamp exactly 300 s in the past', now: t + 300, expected: { ok: true } },
    {
      rule: 'rejects a timestamp more than 300 s in the past (301 s)',
      now: t + 301,
      expected: { ok: false, reason: 'timestamp-too-old' },
    },
    { rule: 'accepts a timestamp exactly 300 s in the future', now: t - 300, expected: { ok: true } },
    {
      rule: 'rejects a timestamp more than 300 s in the future (301 s)',
      now: t - 301,
      expected: { ok: false, reason: 'timestamp-too-new' },
    },
    {
      rule: 'honours a custom toleranceSeconds',
      now: t + 61,
      toleranceSeconds: 60,
      expected: { ok: false, reason: 'timestamp-too-old' },
    },
    {
      rule: 'rejects a fractional timestamp',
      headers: { 'webhook-timestamp': `${t}.5` },
      expected: { ok: false, reason: 'invalid-timestamp' },
    },
    {
      rule: 'rejects a non-numeric timestamp',
      headers: { 'webhook-timestamp': 'yesterday' },
      expected: { ok: false, reason: 'invalid-timestamp' },
    },
    {
      rule: 'rejects a negative timestamp',
      headers: { 'webhook-timestamp': `-${t}` },
      expected: { ok: false, reason: 'invalid-timestamp' },
    },
    {
      rule: 'rejects a timestamp with trailing text',
      headers: { 'webhook-timestamp': `${t}abc` },
      expected: { ok: false, reason: 'invalid-timestamp' },
    },
    {
      rule: 'ignores an entry of an unknown scheme alongside a valid v1 entry',
      headers: { 'webhook-signature': `v1a,${validEntry.slice(3)} ${validEntry}` },
      expected: { ok: true },
    },
    {
      rule: 'does not accept a valid signature under an unknown scheme',
      headers: { 'webhook-signature': `v2,${validEntry.slice(3)}` },
      expected: { ok: false, reason: 'no-matching-signature' },
    },
    {
      rule: 'rejects a signature of the wrong length',
      headers: { 'webhook-signature': `${validEntry}AA` },
      expected: { ok: false, reason: 'no-matching-signature' },
    },
    {
      rule: 'rejects a signature with junk characters a lenient base64 decoder would skip',
      headers: { 'webhook-signature': `v1,${validEntry.slice(3, 10)}!${validEntry.slice(10)}` },
      expected: { ok: false, reason: 'no-matching-signature' },
    },
    {
      rule: 'rejects an entry without a comma',
      headers: { 'webhook-signature': `v1${validEntry.slice(3)}` },
      expected: { ok: false, reason: 'no-matching-signature' },
    },
    {
      rule: 'rejects a tampered body',
      body: '{"test": 2432232315}',
      expected: { ok: false, reason: 'no-matching-signature' },
    },
    {
      rule: 'rejects a re-serialised body that differs from the raw bytes',
      body: '{"test":2432232314}',
      expected: { ok: false, reason: 'no-matching-signature' },
    },
    {
      rule: 'rejects a tampered webhook-id',
      headers: { 'webhook-id': 'msg_other' },
      expected: { ok: false, reason: 'no-matching-signature' },
    },
    {
      rule: 'rejects a signature made with another secret',
      secret: other,
      expected: { ok: false, reason: 'no-matching-signature' },
    },
    {
      rule: 'accepts two signatures where only the second matches',
      headers: { 'webhook-signature': `${otherEntry} ${validEntry}` },
      expected: { ok: true },
    },
    {
      rule: 'accepts two signatures where only the first matches',
      headers: { 'webhook-signature': `${validEntry} ${otherEntry}` },
      expected: { ok: true },
    },
    {
      rule: 'tolerates several spaces between entries',
      headers: { 'webhook-signature': `${otherEntry}   ${validEntry}` },
      expected: { ok: true },
    },
  ];

  for (const c of cases) {
    it(c.rule, () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries({ ...VECTOR_HEADERS, ...c.headers })) {
        if (value !== undefined) headers[name] = value;
      }
      const result = verify({
        body: c.body ?? VECTOR.body,
        headers,
        secret: c.secret ?? VECTOR.secret,
        now: (c.now ?? t) * 1000,
        ...(c.toleranceSeconds === undefined ? {} : { toleranceSeconds: c.toleranceSeconds }),
      });
      assert.deepEqual(result, c.expected);
    });
  }

  it('finds headers given with another letter case', () => {
    const headers = { 'Webhook-Id': VECTOR.id, 'WEBHOOK-TIMESTAMP': String(t), 'webhook-signature': VECTOR.signature };
    assert.deepEqual(verify({ body: VECTOR.body, headers, secret: VECTOR.secret, now: VECTOR_NOW }), { ok: true });
  });

  it('throws APP_WEBHOOK_SECRET_INVALID for an unusable secret instead of answering ok: false', () => {
    assert.throws(
      () => verify({ body: VECTOR.body, headers: VECTOR_HEADERS, secret: 'whsec_', now: VECTOR_NOW }),
      isCode('APP_WEBHOOK_SECRET_INVALID'),
    );
  });

  it('uses the current clock by default (the 2021 test vector is too old today)', () => {
    assert.deepEqual(verify({ body: VECTOR.body, headers: VECTOR_HEADERS, secret: VECTOR.secret }), {
      ok: false,
      reason: 'timestamp-too-old',
    });
  });
});
