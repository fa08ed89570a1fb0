import { configCommand } from './config.ts';
import { migrateCommand } from './migrate.ts';
import { jobsCommands } from './jobs.ts';
import { webhooksInstallCommand } from './webhooks-install.ts';
import { webhooksAddCommand } from './webhooks-add.ts';
import { webhooksListCommand, webhooksStatusCommand } from './webhooks-list.ts';
import { webhooksShowCommand } from './webhooks-show.ts';
import { webhooksUpdateCommand } from './webhooks-update.ts';
import { webhooksDisableCommand, webhooksEnableCommand } from './webhooks-toggle.ts';
import { webhooksRemoveCommand } from './webhooks-remove.ts';
import { webhooksRotateCommand } from './webhooks-rotate.ts';
import { webhooksSendCommand } from './webhooks-send.ts';
import { eventsEmitCommand } from './events-emit.ts';
import { tokensCreateCommand } from './tokens-create.ts';
import { tokensListCommand } from './tokens-list.ts';
import { tokensRevokeCommand } from './tokens-revoke.ts';
import { openapiCommand } from './openapi.ts';
import { auditCommand } from './audit.ts';

/** Every command of the `app` CLI, in the order `--help` lists them. */
export const commands = [
  migrateCommand,
  configCommand,
  webhooksInstallCommand,
  webhooksAddCommand,
  webhooksListCommand,
  webhooksShowCommand,
  webhooksStatusCommand,
  webhooksUpdateCommand,
  webhooksDisableCommand,
  webhooksEnableCommand,
  webhooksRemoveCommand,
  webhooksRotateCommand,
  webhooksSendCommand,
  eventsEmitCommand,
  ...jobsCommands,
  tokensCreateCommand,
  tokensListCommand,
  tokensRevokeCommand,
  openapiCommand,
  auditCommand,
];
