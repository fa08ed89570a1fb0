import { defineCommand } from '../command.ts';

export const migrateCommand = defineCommand({
  run: async (context) => {
    const { migrate } = await import('../../shared/db/migrate.ts');
    const result = await migrate({ config: context.databaseConfig(), log: context.log });
    context.print(result, () =>
      result.applied.length === 0
        ? `database is up to date (${result.alreadyApplied} migrations applied before)`
        : `applied ${result.applied.join(', ')}`,
    );
  },
});
