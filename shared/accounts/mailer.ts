/**
 * Outgoing mail (password links) through nodemailer over the SMTP server `mail.url` names.
 * Without `mail.url`, outside production, the mail is written to the log instead (the link can
 * be copied from there); in production it is not sent and an error is logged.
 */
import nodemailer from 'nodemailer';
import type { Config } from '../config/index.ts';
import type { Logger } from '../log/logger.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

export function createMailer(config: Pick<Config, 'mail' | 'env'>, log: Logger): Mailer {
  const { url, from } = config.mail;
  if (!url) {
    return {
      async send(mail) {
        if (config.env === 'production')
          log.error({ to: mail.to, subject: mail.subject }, 'mail not sent: mail.url is not set');
        else
          log.info(
            { to: mail.to, subject: mail.subject },
            `mail not sent (mail.url is not set); it reads:\n${mail.text}`,
          );
      },
      close() {},
    };
  }
  const transport = nodemailer.createTransport(url);
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
      log.info({ to: mail.to, subject: mail.subject }, 'mail sent');
    },
    close: () => transport.close(),
  };
}
