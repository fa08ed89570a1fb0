import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createWebServer, type WebServer } from '../../../api/server.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { linesInto } from '../../helpers/logs.ts';

describe('audit finding trust-proxy.forwarded-ignored', () => {
  const servers: WebServer[] = [];
  after(() => Promise.all(servers.map((web) => web.shutdown('test'))));

  async function serve(trustProxy: boolean) {
    const db = await createTestDatabase();
    const lines: Record<string, unknown>[] = [];
    const config = db.configWith({ trustProxy, logLevel: 'info' });
    const web = createWebServer({ config, log: createLogger(config, { name: 'test', destination: linesInto(lines) }) });
    servers.push(web);
    const base = `http://127.0.0.1:${(await web.start(0)).port}`;
    const notices = () => lines.filter((line) => line.finding === 'trust-proxy.forwarded-ignored');
    return { base, notices };
  }

  it('is logged once, at the first request with X-Forwarded-For while trustProxy is off', async () => {
    const { base, notices } = await serve(false);
    await (await fetch(`${base}/livez`)).text();
    assert.equal(notices().length, 0, 'no header, no finding');
    for (let i = 0; i < 3; i++) await (await fetch(`${base}/livez`, { headers: { 'x-forwarded-for': '203.0.113.7' } })).text();
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
