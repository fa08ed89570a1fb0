import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../../shared/log/logger.ts';
import { testConfig } from '../../helpers/database.ts';
import { linesInto } from '../../helpers/logs.ts';
import { serveWeb } from '../../helpers/web.ts';

describe('audit finding trust-proxy.forwarded-ignored', () => {
  async function serve(trustProxy: boolean) {
    const lines: Record<string, unknown>[] = [];
    const log = createLogger(testConfig(null, { logLevel: 'info' }), { name: 'test', destination: linesInto(lines) });
    const { base } = await serveWeb({ trustProxy, logLevel: 'info' }, { log });
    const notices = () => lines.filter((line) => line.finding === 'trust-proxy.forwarded-ignored');
    return { base, notices };
  }

  it('is logged once, at the first request with X-Forwarded-For while trustProxy is off', async () => {
    const { base, notices } = await serve(false);
    await (await fetch(`${base}/livez`)).text();
    assert.equal(notices().length, 0, 'no header, no finding');
    for (let i = 0; i < 3; i++)
      await (await fetch(`${base}/livez`, { headers: { 'x-forwarded-for': '203.0.113.7' } })).text();
    assert.equal(notices().length, 1);
    assert.equal(notices()[0].level, 30);
    assert.match(String(notices()[0].remedy), /APP_TRUST_PROXY=true/);
  });

  it('is never logged when trustProxy is on', async () => {
    const { base, notices } = await serve(true);
    await (await fetch(`${base}/livez`, { headers: { 'x-forwarded-for': '203.0.113.7' } })).text();
    assert.equal(notices().length, 0);
  });
});
