/**
 * The attempt span's URL attribute: where the request went, without what may be a credential;
 * and the `traceparent` a delivery carries, one whatever the endpoint's own headers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dialledUrl, withTraceparent } from '../../../worker/delivery/attempt-span.ts';

describe('the attempt span URL', () => {
  it('has no userinfo, no query and no fragment', () => {
    assert.deepEqual(dialledUrl('https://user:s3cret@hooks.example.com:8443/in/hook?token=abc#x'), {
      full: 'https://hooks.example.com:8443/in/hook',
      host: 'hooks.example.com',
      port: 8443,
    });
  });

  it('names the default port of its scheme', () => {
    assert.equal(dialledUrl('https://hooks.example.com/h')?.port, 443);
    assert.equal(dialledUrl('http://hooks.example.com/h')?.port, 80);
  });

  it('is left out for a URL that does not parse', () => {
    assert.equal(dialledUrl('not a url'), null);
  });
});

describe('the traceparent of a delivery', () => {
  const ours = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

  it("replaces an endpoint's own traceparent and tracestate in any spelling, keeping its other headers", () => {
    assert.deepEqual(
      withTraceparent(
        { 'X-Tenant': 'acme', Traceparent: '00-aaaa-bbbb-01', TRACESTATE: 'vendor=1', traceparent: 'x' },
        ours,
      ),
      { 'X-Tenant': 'acme', traceparent: ours },
    );
  });

  it('adds it to headers that hold none', () => {
    assert.deepEqual(withTraceparent({}, ours), { traceparent: ours });
  });
});
