/**
 * The filter options the listing commands share (`jobs:list`, `jobs:dead`, `events:list`,
 * `webhooks:list`, `webhooks:status`, `users:list`), turned into the query of the core's one listing function
 * for each entity, so the CLI filters exactly as REST and GraphQL do.
 */
import { MAX_LIST_LIMIT } from '../../shared/webhooks/deliveries/page-size.ts';
import { parseTimeRange, type TimeRange, timeRangeInvalid } from '../../shared/webhooks/time-range.ts';
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

/**
 * `--since`/`--until` as given. The API reads an empty query parameter as no bound; on the command
 * line a blank value is most often an unset shell variable (`--until "$UNTIL"`), and read as no
 * bound it would list, or replay, far more than meant. So it is refused (422
 * APP_WEBHOOK_TIME_RANGE_INVALID, exit 1).
 */
export function givenTimes(args: { since?: string; until?: string }): { since?: string; until?: string } {
  for (const field of ['since', 'until'] as const) {
    const value = args[field];
    if (value !== undefined && value.trim() === '')
      throw timeRangeInvalid(field, 'is empty: give an ISO 8601 date-time such as 2026-01-31T12:00:00Z', value);
  }
  return { since: args.since, until: args.until };
}

/** `--since`/`--until` checked as REST checks them (422 APP_WEBHOOK_TIME_RANGE_INVALID), a blank one refused. */
export const rangeOf = (args: { since?: string; until?: string }): TimeRange => parseTimeRange(givenTimes(args));

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

export const pageOption = {
  type: 'number',
  default: 1,
  describe: 'Which page of --limit records to list (1: the first)',
} as const;

/** `--page` as a page number: a whole number from 1; a usage error (exit 2) otherwise. */
export function pageOf(page: number): number {
  if (!Number.isInteger(page) || page < 1) throw new UsageError(`--page ${page}: must be a whole number from 1`);
  return page;
}
