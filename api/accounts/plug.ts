/**
 * Mounts the user module (permit, session, sign-in strategies, CSRF, in the `user` slot of the
 * middleware order, api/pipeline.ts): the account dependencies (sessions, lockout counted in the shared backend,
 * mail), the account paths in the `router` slot after the application's routes (a route the
 * application declares on one of these paths is its own sign-in page), and gives
 * the session strategy and the CSRF check to the `user` slot through plugAuthentication.
 */
import type { AccountDeps } from '../../shared/accounts/deps.ts';
import { createMailer } from '../../shared/accounts/mailer.ts';
import type { Config } from '../../shared/config/index.ts';
import type { Sql } from '../../shared/db/connect.ts';
import type { Logger } from '../../shared/log/logger.ts';
import type { SharedStore } from '../../shared/stores/types.ts';
import type { TokenCache } from '../../shared/tokens/cache.ts';
import type { GraphqlService } from '../graphql/service.ts';
import type { Module } from '../lifecycle.ts';
import { pagePaths } from '../console/pages/paths.ts';
import { createViews } from '../console/pages/render.ts';
import type { Pipeline } from '../pipeline.ts';
import { cookieSettings } from './cookies.ts';
import type { PageContext } from './page.ts';
import { accountRoutes } from './routes.ts';

export interface AccountsWeb {
  accounts: AccountDeps;
  pages: PageContext;
  module: Module;
}

export function plugAccounts(
  pipeline: Pick<Pipeline, 'use'>,
  deps: {
    config: Config;
    log: Logger;
    sql: Sql;
    shared: SharedStore;
    now?: () => number;
    graphql?: () => GraphqlService | undefined;
    tokenCache?: TokenCache;
  },
): AccountsWeb {
  const { config, log, sql, shared } = deps;
  const mailer = createMailer(config, log);
  const accounts: AccountDeps = {
    config,
    sql,
    log,
    now: deps.now ?? Date.now,
    lockouts: shared.entries,
    mailer,
    ...(deps.tokenCache ? { tokenCache: deps.tokenCache } : {}),
  };
  const pages: PageContext = {
    config,
    cookies: cookieSettings(config),
    views: createViews(config),
    paths: pagePaths(config),
    graphql: deps.graphql,
  };
  pipeline.use('router', accountRoutes({ accounts, pages }));
  return { accounts, pages, module: { name: 'mail', stop: async () => mailer.close() } };
}
