/**
 * The attempt span's URL attribute: where the request went, without what may be a credential.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dialledUrl } from '../../../worker/delivery/attempt-span.ts';

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
