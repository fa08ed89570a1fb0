/**
 * Outgoing mail (password links) through nodemailer over the SMTP server `mail.url` names.
 * Without `mail.url`, outside production, the mail is written to the log instead, to show what
 * would have been sent: its link's token is masked there like every token the logger writes, so
 * the line says where a working link comes from. In production it is not sent and an error is
 * logged.
 */
import nodemailer from 'nodemailer';
import type { Config } from '../config/index.ts';
import type { Logger } from '../log/logger.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** What the logged mail (no `mail.url`) says of its masked link, in place of {@link MASKED_LINK_HINT}. */
  maskedHint?: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

/** Where a working link comes from when the logged mail's token is masked. */
export const MASKED_LINK_HINT =
  "(a link's token is masked in the log: set mail.url to send the mail, or make a working set-password link with `app users:reset-link <email>` or the console's Users page)";

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
            `mail not sent (mail.url is not set); it reads:\n${mail.text}\n${mail.maskedHint ?? MASKED_LINK_HINT}`,
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
