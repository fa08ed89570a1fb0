/** The paths every page object carries (`paths`): the account paths, the console's, GraphQL's. */
import type { Config } from '../../../shared/config/index.ts';
import { ACCOUNT_PATHS } from '../../accounts/paths.ts';
import { CONSOLE_PATHS } from '../paths.ts';

export const pagePaths = (config: Pick<Config, 'graphql'>): Readonly<Record<string, string | null>> =>
  Object.freeze({ ...ACCOUNT_PATHS, ...CONSOLE_PATHS, graphql: config.graphql ? config.graphql.path : null });
