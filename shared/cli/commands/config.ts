import { maskConfig } from '../../config/index.ts';
import { defineCommand } from '../command.ts';

export const configCommand = defineCommand({
  command: 'config',
  describe: 'Print the effective configuration, secrets masked',
  run: async (context) => {
    const masked = maskConfig(context.config);
    context.print(masked, () => JSON.stringify(masked, null, 2));
  },
});
