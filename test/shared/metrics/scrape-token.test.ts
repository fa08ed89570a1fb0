import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { scrapeAllowed } from '../../../shared/metrics/scrape-token.ts';
import { startMetricsServer } from '../../../worker/metrics-server.ts';

describe('the metrics scrape token', () => {
  it('allows only the configured token, sent as a bearer token', () => {
    assert.equal(scrapeAllowed('Bearer s3cret-token', 's3cret-token'), true);
    assert.equal(scrapeAllowed('bearer s3cret-token', 's3cret-token'), true, 'the scheme is case-insensitive');
    for (const header of [undefined, '', 'Bearer', 'Bearer s3cret', 'Basic s3cret-token', 's3cret-token'])
      assert.equal(scrapeAllowed(header, 's3cret-token'), false, String(header));
  });

  it('a blank token allows no scrape, on the worker listener neither: a request without the header would match an empty one', async () => {
    for (const token of ['', '   ']) {
      for (const header of [undefined, '', 'Bearer ', `Bearer ${token}`])
        assert.equal(scrapeAllowed(header, token), false, `${JSON.stringify(header)} for ${JSON.stringify(token)}`);
      const server = await startMetricsServer({ registry: new Registry(), token, port: 0, host: '127.0.0.1' });
      try {
        const answer = await fetch(`http://127.0.0.1:${server.port}/metrics`);
        assert.equal(answer.status, 401, `token ${JSON.stringify(token)}: ${await answer.text()}`);
      } finally {
        await server.close();
      }
    }
  });
});
