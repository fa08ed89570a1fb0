/**
 * A real SMTP server on a free port for tests (the `smtp-server` package), keeping every message
 * it receives, parsed by `mailparser`. `next()` resolves with the next message to arrive.
 */
import { after } from 'node:test';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface Mailbox {
  url: string;
  received: ParsedMail[];
  /** The next message received (one already received and not yet taken first). */
  next(): Promise<ParsedMail>;
}

export async function startSmtpServer(): Promise<Mailbox> {
  const received: ParsedMail[] = [];
  let taken = 0;
  const waiting: ((mail: ParsedMail) => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push(mail);
          const wake = waiting.shift();
          if (wake) {
            taken += 1;
            wake(mail);
          }
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    next: () =>
      taken < received.length ? Promise.resolve(received[taken++]) : new Promise((resolve) => waiting.push(resolve)),
  };
}
