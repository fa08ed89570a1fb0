import { defineCommand } from '../command.ts';

export const configCommand = defineCommand({
  run: async (context) => {
    const { maskConfig } = await import('../../shared/config/index.ts');
    const masked = maskConfig(context.config);
    context.print(masked, () => JSON.stringify(masked, null, 2));
  },
});
