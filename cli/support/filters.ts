/**
 * The filter options the listing commands share (`jobs:list`, `jobs:dead`, `events:list`,
 * `webhooks:list`, `webhooks:status`), turned into the query of the core's one listing function
 * for each entity, so the CLI filters exactly as REST and GraphQL do.
 */
import { MAX_LIST_LIMIT } from '../../shared/webhooks/deliveries/page-size.ts';
import { parseTimeRange, type TimeRange } from '../../shared/webhooks/time-range.ts';
import { UsageError } from '../failure.ts';

export const ownerOptions = {
  owner: { type: 'string', describe: "Only this owner's records" },
  'without-owner': { type: 'boolean', describe: "Only records without owner (the operator's)" },
} as const;

/** `--owner O` / `--without-owner` as the core's owner filter (undefined: every owner). */
export const ownerOf = (args: { owner?: string; 'without-owner'?: boolean }): string | null | undefined =>
  args['without-owner'] ? null : args.owner;

export const timeOptions = {
  since: { type: 'string', describe: 'Only those created at or after this ISO 8601 time' },
  until: { type: 'string', describe: 'Only those created before this ISO 8601 time' },
} as const;

/** `--since`/`--until` checked as REST checks them (422 APP_WEBHOOK_TIME_RANGE_INVALID). */
export const rangeOf = (args: { since?: string; until?: string }): TimeRange =>
  parseTimeRange({ since: args.since, until: args.until });

export const limitOption = {
  type: 'number',
  default: 100,
  describe: `Most records listed, newest first (at most ${MAX_LIST_LIMIT})`,
} as const;

/** `--limit` as a page size: a whole number from 1 to MAX_LIST_LIMIT; a usage error (exit 2) otherwise. */
export function limitOf(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT)
    throw new UsageError(`--limit ${limit}: must be a whole number from 1 to ${MAX_LIST_LIMIT}`);
  return limit;
}
