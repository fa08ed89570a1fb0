import { maskConfig } from '../../shared/config/index.ts';
import { defineCommand } from '../command.ts';

export const configCommand = defineCommand({
  run: async (context) => {
    const masked = maskConfig(context.config);
    context.print(masked, () => JSON.stringify(masked, null, 2));
  },
});
