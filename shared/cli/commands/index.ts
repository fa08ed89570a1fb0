import { configCommand } from './config.ts';
import { migrateCommand } from './migrate.ts';
import { jobsCommands } from './jobs.ts';

/** Every command of the `app` CLI, in the order `--help` lists them. */
export const commands = [migrateCommand, configCommand, ...jobsCommands];
