import { migrate } from '../../db/migrate.ts';
import { defineCommand } from '../command.ts';

export const migrateCommand = defineCommand({
  command: 'migrate',
  describe: 'Apply pending database migrations and install the job queue schema (safe to run from several processes)',
  run: async (context) => {
    const result = await migrate({ config: context.config, sql: context.sql(), log: context.log });
    context.print(result, () =>
      result.applied.length === 0 ? `database is up to date (${result.alreadyApplied} migrations applied before)` : `applied ${result.applied.join(', ')}`);
  },
});
