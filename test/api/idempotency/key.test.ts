import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_KEY_LENGTH, parseIdempotencyKey } from '../../../api/idempotency/key.ts';
import { decide, type IdempotencyRecord } from '../../../api/idempotency/records.ts';
import { fingerprint, recordKey, scopeOf } from '../../../api/idempotency/request.ts';

describe('Idempotency-Key: 1 to 255 printable ASCII characters', () => {
  const valid: Array<[string, string, string]> = [
    ['one character', 'a', 'a'],
    ['255 characters', 'k'.repeat(MAX_KEY_LENGTH), 'k'.repeat(MAX_KEY_LENGTH)],
    [
      'every printable ASCII character, space included',
      "a !#$%&'()*+,-./09:;<=>?@AZ[\\]^_`az{|}~",
      "a !#$%&'()*+,-./09:;<=>?@AZ[\\]^_`az{|}~",
    ],
    ['a UUID', '8e0f3a5c-5b1d-4c8e-9f7a-2d6b1c0e4a11', '8e0f3a5c-5b1d-4c8e-9f7a-2d6b1c0e4a11'],
    ['an RFC 8941 string (quoted form)', '"abc-123"', 'abc-123'],
    ['a quoted form with escapes', '"a\\"b\\\\c"', 'a"b\\c'],
  ];
  for (const [rule, header, key] of valid) {
    it(`accepts ${rule}`, () => assert.deepEqual(parseIdempotencyKey(header), { ok: true, key }));
  }

  const invalid: Array<[string, string]> = [
    ['empty', ''],
    ['256 characters', 'k'.repeat(MAX_KEY_LENGTH + 1)],
    ['a quoted form of 256 characters', `"${'k'.repeat(MAX_KEY_LENGTH + 1)}"`],
    ['an empty quoted form', '""'],
    ['non-ASCII', 'clé'],
    ['an emoji', 'key-🙂'],
    ['DEL (0x7f)', 'a\x7fb'],
    ['a quoted form with a bare quote inside', '"a"b"'],
    ['a quoted form with an unknown escape', '"a\\nb"'],
  ];
  for (let code = 0; code < 0x20; code += 1)
    invalid.push([`control character 0x${code.toString(16).padStart(2, '0')}`, `ab${String.fromCharCode(code)}cd`]);
  for (const [rule, header] of invalid) {
    it(`refuses ${rule}`, () => assert.equal(parseIdempotencyKey(header).ok, false));
  }
});

describe('the state table as a function (decide)', () => {
  const executing: IdempotencyRecord = { state: 'executing', fingerprint: 'F', token: 't' };
  const stored: IdempotencyRecord = {
    state: 'stored',
    fingerprint: 'F',
    answer: { status: 201, headers: {}, body: { kind: 'empty' } },
  };
  const rows: Array<[string, IdempotencyRecord | undefined, string, string]> = [
    ['no record, first request: execute', undefined, 'F', 'execute'],
    ['stored, same request: replay', stored, 'F', 'replay'],
    ['executing, same request: in-progress (409)', executing, 'F', 'in-progress'],
    ['stored, different request: reused (422)', stored, 'G', 'reused'],
    ['executing, different request: reused (422)', executing, 'G', 'reused'],
  ];
  for (const [rule, record, print, outcome] of rows) it(rule, () => assert.equal(decide(record, print), outcome));
});

describe('scope, record key and fingerprint', () => {
  it('scope is the user, else the session, else the ip', () => {
    assert.equal(scopeOf({ principalId: 'u1', sessionId: 's1', ip: '1.2.3.4' }), 'user:u1');
    assert.equal(scopeOf({ sessionId: 's1', ip: '1.2.3.4' }), 'session:s1');
    assert.equal(scopeOf({ ip: '1.2.3.4' }), 'ip:1.2.3.4');
  });

  it('a record key depends on both scope and key, and stays short whatever the key', () => {
    assert.notEqual(recordKey('user:a', 'k'), recordKey('user:b', 'k'));
    assert.notEqual(recordKey('user:a', 'k1'), recordKey('user:a', 'k2'));
    assert.ok(recordKey('user:a', 'k'.repeat(255)).length < 60);
  });

  it('the fingerprint changes with the method, the path (and query) and the body', () => {
    const base = { method: 'POST', url: '/orders', body: '{"a":1}' };
    const print = fingerprint(base);
    assert.equal(fingerprint({ ...base }), print);
    assert.notEqual(fingerprint({ ...base, method: 'PUT' }), print);
    assert.notEqual(fingerprint({ ...base, url: '/orders/1' }), print);
    assert.notEqual(fingerprint({ ...base, url: '/orders?x=1' }), print);
    assert.notEqual(fingerprint({ ...base, body: '{"a":2}' }), print);
  });
});
