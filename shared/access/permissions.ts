/**
 * Who may do what: the one table of the service's authorization. Every core operation, read or
 * change, names its row here and refuses a caller whose grant the row does not list
 * (shared/access/actor.ts `authorize`, `readScope`), before it reads or writes anything; REST's route guard,
 * GraphQL, the console and the CLI pass the caller along and keep no rule of their own, and the
 * links and buttons a caller is offered are read from the same rows.
 *
 * A caller's grant is its role (`admin`, `member`, `viewer`: shared/tokens/roles.ts), as an API
 * token, a signed-in user or the operator (the CLI and the in-process interface act as an admin
 * of every tenant); a tenant portal session's grant is `portal member` or `portal viewer`. What
 * a grant reaches is its tenant scope (shared/access/tenant-scope.ts): admins every tenant,
 * the others exactly their owner.
 *
 * docs/accounts-and-console.md ("Who may do what") shows this table; a test compares the two.
 */
import { ROLES, type Role } from '../tokens/roles.ts';

export const GRANTS = ['admin', 'member', 'viewer', 'portal member', 'portal viewer'] as const;
export type Grant = (typeof GRANTS)[number];

const EVERYONE: readonly Grant[] = GRANTS;
/** Those who change a tenant's webhook records: admins, members, and a portal's members. */
const WRITERS: readonly Grant[] = ['admin', 'member', 'portal member'];
/** Signed-in users (and token holders) who change things: a portal session has no user to own a token. */
const USER_WRITERS: readonly Grant[] = ['admin', 'member'];
/** Signed-in users and token holders: a portal session has no user, so no tokens to list. */
const USERS: readonly Grant[] = ['admin', 'member', 'viewer'];
const ADMINS: readonly Grant[] = ['admin'];

/**
 * Operation -> the grants that may run it. The reads (`*.read`) are decided here like the
 * changes; what a read then answers is narrowed by the caller's tenant scope.
 */
export const PERMISSIONS = Object.freeze({
  'webhooks.read': EVERYONE,
  // trying a filter changes nothing and reads only what the caller may read: as reading endpoints
  'filters.test': EVERYONE,
  'endpoints.register': WRITERS,
  'endpoints.update': WRITERS,
  'endpoints.disable': WRITERS,
  'endpoints.enable': WRITERS,
  'endpoints.rotate': WRITERS,
  'endpoints.reveal': WRITERS,
  'endpoints.send': WRITERS,
  'endpoints.remove': WRITERS,
  'endpoints.recover': WRITERS,
  'deliveries.retry': WRITERS,
  'deliveries.resend': WRITERS,
  'events.emit': WRITERS,
  'eventTypes.create': ADMINS,
  'eventTypes.update': ADMINS,
  'tokens.read': USERS,
  'tokens.mint': USER_WRITERS,
  'tokens.revoke': USER_WRITERS,
  'users.read': ADMINS,
  'users.invite': ADMINS,
  'users.disable': ADMINS,
  'users.enable': ADMINS,
  'users.passwordLink': ADMINS,
  'tenants.read': ADMINS,
  'portalLinks.create': ADMINS,
  'portalSessions.end': ADMINS,
} satisfies Record<string, readonly Grant[]>);

export type Operation = keyof typeof PERMISSIONS;

/** Every operation of the table, in its order. */
export const OPERATIONS = Object.keys(PERMISSIONS) as Operation[];

/** What each operation does, in words: the 403's message and the documented table. */
export const OPERATION_TEXT: Readonly<Record<Operation, string>> = Object.freeze({
  'webhooks.read': 'read endpoints, events, deliveries and the event-type catalog',
  'filters.test': 'try a subscription filter on an event',
  'endpoints.register': 'register an endpoint',
  'endpoints.update': "change an endpoint's settings",
  'endpoints.disable': 'disable an endpoint',
  'endpoints.enable': 'enable an endpoint',
  'endpoints.rotate': "rotate an endpoint's secret",
  'endpoints.reveal': "reveal an endpoint's secrets and header values",
  'endpoints.send': 'send an event to one endpoint (test events)',
  'endpoints.remove': 'remove an endpoint',
  'endpoints.recover': "replay an endpoint's dead deliveries",
  'deliveries.retry': 'retry a dead delivery',
  'deliveries.resend': 'send a delivered event again',
  'events.emit': 'emit an event',
  'eventTypes.create': 'add an event type to the catalog',
  'eventTypes.update': 'change an event type',
  'tokens.read': 'list API tokens (their own; admins every one)',
  'tokens.mint': 'mint an API token',
  'tokens.revoke': 'revoke an API token',
  'users.read': 'list users',
  'users.invite': 'invite a user',
  'users.disable': 'disable a user',
  'users.enable': 'enable a user',
  'users.passwordLink': 'make a set-password link for a user',
  'tenants.read': 'list tenants',
  'portalLinks.create': 'make a tenant portal link',
  'portalSessions.end': "end a tenant's portal sessions (and its unopened links)",
});

/** Whether `grant` may run `operation`. */
export const grants = (operation: Operation, grant: string): boolean =>
  (PERMISSIONS[operation] as readonly string[]).includes(grant);

/**
 * The roles whose holders may run `operation` as some grant (`portal member` is a member): what
 * a route guard that knows only roles admits, so it never refuses what the core would allow.
 */
export function rolesFor(operation: Operation): readonly Role[] {
  const granted = PERMISSIONS[operation] as readonly string[];
  return ROLES.filter((role) => granted.includes(role) || granted.includes(`portal ${role}`));
}
