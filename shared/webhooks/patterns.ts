/**
 * Event names and the subscription patterns of webhook endpoints.
 *
 * An event name is dot-separated segments of letters, digits, `_` and `-` (at most 255
 * characters). A pattern is an exact name, a family `<name>.*` (every name beneath it, at any
 * depth) or `*` (everything). There is no other pattern syntax.
 */
import { unprocessable } from '../errors/app-error.ts';

/** Longest event name accepted. */
export const MAX_EVENT_NAME_LENGTH = 255;

/**
 * Most distinct patterns one endpoint subscribes to. Every emit matches its event against every
 * pattern of its owner's endpoints in the web process, so a tenant's endpoints with thousands of
 * patterns each would slow every emit of the process; a family pattern (`order.*`) says in one
 * what would otherwise take many names.
 */
export const MAX_EVENT_PATTERNS = 256;

const SEGMENT = /^[A-Za-z0-9_-]+$/;
const FAMILY_SUFFIX = '.*';

/**
 * Null when `name` is a valid exact event name, else a short reason. `*` and families are not
 * event names.
 */
export function validateEventName(name: string): string | null {
  if (typeof name !== 'string') return 'must be a string';
  if (name.length === 0) return 'must not be empty';
  if (name.length > MAX_EVENT_NAME_LENGTH) return `must be at most ${MAX_EVENT_NAME_LENGTH} characters`;
  for (const segment of name.split('.')) {
    if (segment.length === 0) return 'must not have an empty segment (leading, trailing or doubled dot)';
    if (!SEGMENT.test(segment)) {
      return 'segments may only hold letters, digits, `_` and `-`, separated by dots';
    }
  }
  return null;
}

/**
 * Null when `pattern` is a valid subscription pattern (an exact event name, `<name>.*` or `*`),
 * else a short reason.
 */
export function validateEventPattern(pattern: string): string | null {
  if (typeof pattern !== 'string') return 'must be a string';
  if (pattern === '*') return null;
  if (pattern.endsWith(FAMILY_SUFFIX)) {
    const reason = validateEventName(pattern.slice(0, -FAMILY_SUFFIX.length));
    return reason === null ? null : `family prefix ${reason}`;
  }
  if (pattern.includes('*')) {
    return '`*` is allowed only alone or as the whole last segment of a family such as `order.*`';
  }
  return validateEventName(pattern);
}

/**
 * The `events` of an endpoint, checked: a non-empty array of valid patterns, duplicates dropped
 * (first occurrence kept, order preserved), at most `MAX_EVENT_PATTERNS` of them. Throws AppError
 * 422 `APP_WEBHOOK_EVENTS_INVALID` with `data: {field: 'events', value, reason}`, `value` being
 * the offending entry (the whole input when it is not a non-empty array; the number of distinct
 * patterns, with `limit`, when there are too many).
 */
export function assertEventPatterns(patterns: unknown): string[] {
  const refuse = (value: unknown, reason: string) =>
    unprocessable(`invalid webhook events: ${reason}`, {
      code: 'APP_WEBHOOK_EVENTS_INVALID',
      data: { field: 'events', value, reason },
    });
  if (!Array.isArray(patterns)) throw refuse(patterns, 'must be an array of event patterns');
  if (patterns.length === 0) throw refuse(patterns, 'must list at least one event pattern');
  const seen = new Set<string>();
  for (const pattern of patterns as unknown[]) {
    if (typeof pattern !== 'string') throw refuse(pattern, 'every entry must be a string');
    const reason = validateEventPattern(pattern);
    if (reason !== null) throw refuse(pattern, reason);
    seen.add(pattern);
  }
  if (seen.size > MAX_EVENT_PATTERNS)
    throw unprocessable(
      `invalid webhook events: at most ${MAX_EVENT_PATTERNS} patterns, got ${seen.size} (a family such as order.* covers every name beneath it)`,
      {
        code: 'APP_WEBHOOK_EVENTS_INVALID',
        data: {
          field: 'events',
          value: seen.size,
          limit: MAX_EVENT_PATTERNS,
          reason: `more than ${MAX_EVENT_PATTERNS} patterns`,
        },
      },
    );
  return [...seen];
}

/**
 * The event name given to emit, checked. Throws AppError 422 `APP_WEBHOOK_EVENT_INVALID` with
 * `data: {field: 'type', value, reason}`.
 */
export function assertEventName(name: unknown): string {
  const reason = typeof name === 'string' ? validateEventName(name) : 'must be a string';
  if (reason !== null) {
    throw unprocessable(`invalid webhook event name: ${reason}`, {
      code: 'APP_WEBHOOK_EVENT_INVALID',
      data: { field: 'type', value: name, reason },
    });
  }
  return name as string;
}

/**
 * Whether an endpoint subscribed with `patterns` receives `event`: an exact (case-sensitive)
 * match, `*`, or a family `a.*` matching every name beneath `a` (`a.b`, `a.b.c`) but neither `a`
 * itself nor `ab.c`. Patterns are assumed validated.
 */
export function matchesEvent(patterns: readonly string[], event: string): boolean {
  for (const pattern of patterns) {
    if (pattern === '*' || pattern === event) return true;
    if (pattern.endsWith(FAMILY_SUFFIX)) {
      const prefix = pattern.slice(0, -1); // keeps the dot: 'a.'
      if (event.length > prefix.length && event.startsWith(prefix)) return true;
    }
  }
  return false;
}
