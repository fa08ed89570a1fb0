/**
 * Without `mail.url`, outside production, a mail is logged instead of sent (docs/accounts-and-console.md
 * "Mail"). Its link's token is masked there like every token the logger writes, so the logged
 * mail says where a working link comes from rather than leaving a link that cannot work.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMailer } from '../../../shared/accounts/mailer.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { testConfig } from '../../helpers/database.ts';
import { linesInto } from '../../helpers/logs.ts';

describe('mail without mail.url', () => {
  it('is logged with its link token masked and says how to get a working link', async () => {
    const lines: Record<string, unknown>[] = [];
    const config = testConfig(null, { logLevel: 'info' });
    const mailer = createMailer(config, createLogger(config, { name: 'test', destination: linesInto(lines) }));
    const token = 'app_pwl_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';
    await mailer.send({
      to: 'ann@acme.test',
      subject: 'Reset your password',
      text: `open http://localhost:3000/reset-password?token=${token}`,
    });
    const written = JSON.stringify(lines);
    assert.match(written, /mail not sent \(mail\.url is not set\)/);
    assert.ok(!written.includes(token), 'the token is not in the log');
    assert.match(written, /app users:reset-link <email>/, 'the line says where a working link comes from');
  });

  it('is not logged in production: an error says it was not sent', async () => {
    const lines: Record<string, unknown>[] = [];
    const config = { ...testConfig(null, { logLevel: 'info' }), env: 'production' as const };
    const mailer = createMailer(config, createLogger(config, { name: 'test', destination: linesInto(lines) }));
    await mailer.send({ to: 'ann@acme.test', subject: 'Reset your password', text: 'secret text' });
    const written = JSON.stringify(lines);
    assert.match(written, /mail not sent: mail\.url is not set/);
    assert.ok(!written.includes('secret text'));
  });
});
