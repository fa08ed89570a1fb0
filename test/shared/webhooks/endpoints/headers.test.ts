import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  HOP_BY_HOP_HEADERS,
  RESERVED_HEADERS,
  assertEndpointHeaders,
  headerNameProblem,
  parseHeaderArgument,
} from '../../../../shared/webhooks/endpoints/headers.ts';
import { appError } from '../fixtures.ts';

const variants = (name: string) => [
  name,
  name.toUpperCase(),
  name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase()),
];

describe('endpoint headers', () => {
  it('refuses every reserved name in any letter case', () => {
    assert.deepEqual([...RESERVED_HEADERS].sort(), [
      'content-type',
      'user-agent',
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
    ]);
    for (const name of RESERVED_HEADERS)
      for (const variant of variants(name)) assert.equal(headerNameProblem(variant)?.rule, 'reserved', variant);
  });

  it('refuses every hop-by-hop name and every proxy-* name in any letter case', () => {
    for (const name of [
      'connection',
      'keep-alive',
      'te',
      'trailer',
      'transfer-encoding',
      'upgrade',
      'host',
      'content-length',
    ]) {
      assert.ok(HOP_BY_HOP_HEADERS.includes(name), name);
    }
    for (const name of [
      ...HOP_BY_HOP_HEADERS,
      'proxy-authorization',
      'proxy-authenticate',
      'proxy-connection',
      'proxy-x',
    ]) {
      for (const variant of variants(name)) assert.equal(headerNameProblem(variant)?.rule, 'hop-by-hop', variant);
    }
  });

  it('accepts ordinary names', () => {
    for (const name of ['Authorization', 'X-Api-Key', 'x-tenant', 'Accept', "X-Weird!#$%&'*+.^_`|~"])
      assert.equal(headerNameProblem(name), null, name);
  });

  it('refuses values with CR, LF, NUL or DEL, and keeps tabs inside values', () => {
    for (const value of ['a\rb', 'a\nb', '\r\n', 'a\u0000', 'a\u007f', 'a\u0001']) {
      assert.throws(
        () => assertEndpointHeaders({ 'X-A': value }),
        appError('APP_WEBHOOK_HEADERS_INVALID', 422, (e) => assert.equal(e.data?.rule, 'value')),
      );
    }
    assert.deepEqual(assertEndpointHeaders({ 'X-A': ' a\tb ' }), { 'X-A': 'a\tb' });
  });

  it('refuses values with characters outside ISO-8859-1 (HTTP cannot carry them), and keeps Latin-1 ones', () => {
    assert.throws(
      () => assertEndpointHeaders({ 'X-A': 'check ✓' }),
      appError('APP_WEBHOOK_HEADERS_INVALID', 422, (e) => {
        assert.equal(e.data?.rule, 'value');
        assert.match(String(e.data?.reason), /ISO-8859-1/);
      }),
    );
    assert.deepEqual(assertEndpointHeaders({ 'X-A': 'café' }), { 'X-A': 'café' });
  });

  it('never puts a header value in the error', () => {
    assert.throws(
      () => assertEndpointHeaders({ Authorization: 'Bearer s3cr3t\r\n' }),
      (error: Error & { data?: unknown }) => {
        assert.ok(!error.message.includes('s3cr3t'));
        assert.ok(!JSON.stringify(error.data).includes('s3cr3t'));
        return true;
      },
    );
  });

  it('refuses more than 32 headers', () => {
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`X-H${i}`, 'v']));
    assert.throws(() => assertEndpointHeaders(many), appError('APP_WEBHOOK_HEADERS_INVALID'));
  });

  it("parses --header 'Name: value' at the first colon", () => {
    assert.deepEqual(parseHeaderArgument('X-A: b: c'), ['X-A', 'b: c']);
    assert.deepEqual(parseHeaderArgument('X-A:b'), ['X-A', 'b']);
    assert.throws(() => parseHeaderArgument('X-A b'), appError('APP_WEBHOOK_HEADERS_INVALID'));
    assert.throws(() => parseHeaderArgument(': b'), appError('APP_WEBHOOK_HEADERS_INVALID'));
  });
});
