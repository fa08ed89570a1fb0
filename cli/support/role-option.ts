import { ROLES } from '../../shared/tokens/roles.ts';

/** The `--role` option of the commands that grant a role (`tokens:create`, `users:create`). */
export const ROLE_OPTION = {
  type: 'string',
  demandOption: true,
  choices: ROLES,
  describe: 'admin: every tenant; member: its owner, read and write; viewer: its owner, read only',
} as const;
