/**
 * The tenant scope lives in shared/access/tenant-scope.ts (tokens and sessions need it as much as
 * webhooks do). This re-export keeps bench/retention.ts, which still imports it from here, working;
 * remove it once that file imports shared/access/tenant-scope.ts.
 */
export * from '../access/tenant-scope.ts';
