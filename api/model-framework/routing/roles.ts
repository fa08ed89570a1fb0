/**
 * Who may run a route's action. The authentication step (the `user` slot of
 * api/pipeline.ts) sets `ctx.state.principal`; the role guard, GraphQL's `context.authorize` and
 * the HAL links read it here, so a client never gets a link it would be refused on, and the
 * refusal is the same whichever face asks.
 */
import { actorOf, authorize } from '../../../shared/access/actor.ts';
import type { Operation } from '../../../shared/access/permissions.ts';
import { forbidden, unauthorized } from '../../../shared/errors/app-error.ts';

/** The authenticated caller. */
export interface Principal {
  id: string;
  roles: readonly string[];
  /** The tenant the caller acts for, if any. */
  owner?: string | null;
}

/**
 * A route's `roles` option:
 * - absent: every action is open to anyone, signed in or not;
 * - a list: every action needs a principal holding one of these roles;
 * - a map: action name -> list; `default` covers the actions not named; actions in neither are open.
 * The role `'*'` in a list means "any authenticated principal".
 */
export type RoleRule = readonly string[] | Readonly<Record<string, readonly string[] | undefined>>;

export const ANY_AUTHENTICATED = '*';

/** The roles an action needs, or undefined when it is open. */
export function rolesFor(rule: RoleRule | undefined, action: string): readonly string[] | undefined {
  if (rule === undefined) return undefined;
  if (Array.isArray(rule)) return rule as readonly string[];
  const map = rule as Readonly<Record<string, readonly string[] | undefined>>;
  return Object.hasOwn(map, action) ? map[action] : map.default;
}

export type Decision = 'allow' | 'unauthenticated' | 'forbidden';

/** Whether `principal` may run `action` under `rule`, and if not, why. */
export function decide(rule: RoleRule | undefined, action: string, principal: Principal | undefined): Decision {
  const needed = rolesFor(rule, action);
  if (needed === undefined) return 'allow';
  if (!principal) return 'unauthenticated';
  if (needed.includes(ANY_AUTHENTICATED)) return 'allow';
  return needed.some((role) => principal.roles.includes(role)) ? 'allow' : 'forbidden';
}

/** What a `roles` option guards: one action of a route or resource declaration (`name`). */
export interface Guarded {
  roles: RoleRule | undefined;
  action: string;
  name: string;
  /** The operation of the permission table the action runs, when the declaration names one. */
  operation?: Operation;
}

/**
 * Enforces `guarded.roles` for `principal`: no principal where one is needed is 401
 * `APP_UNAUTHENTICATED`; a principal without a needed role is 403 `APP_FORBIDDEN`. An action that
 * names the operation it runs (the product's own APIs) refuses as the core does, whatever the
 * face: `authorize`'s message and `data: {operation, role}`; any other says `{action, role}`.
 */
export function assertRoles(guarded: Guarded, principal: Principal | undefined): void {
  const decision = decide(guarded.roles, guarded.action, principal);
  if (decision === 'unauthenticated')
    throw unauthorized('this route needs an authenticated caller', { code: 'APP_UNAUTHENTICATED' });
  if (decision === 'forbidden') {
    // the roles come from the same table, so the core refuses too; its refusal is the answer
    if (guarded.operation !== undefined) authorize(actorOf(principal), guarded.operation);
    throw forbidden(`the caller's roles do not allow ${guarded.action} on ${guarded.name}`, {
      code: 'APP_FORBIDDEN',
      data: { action: guarded.action, role: principal?.roles?.[0] ?? null },
    });
  }
}

/**
 * Problems with a `roles` option, for the route table's check at boot. A map's keys are
 * `default` and the `actions` the declaration routes: an action not named falls to `default`,
 * or is open without one, so a misspelt key (`destory`) would leave the action it meant open.
 */
export function roleRuleProblems(rule: unknown, actions: readonly string[]): string[] {
  const isList = (value: unknown) =>
    Array.isArray(value) && value.every((role) => typeof role === 'string' && role.length > 0);
  if (rule === undefined || isList(rule)) return [];
  if (typeof rule !== 'object' || rule === null) return ['roles must be a list of role names or a map action -> list'];
  return Object.entries(rule).flatMap(([action, value]) => [
    ...(isList(value) ? [] : [`roles.${action} must be a list of role names`]),
    ...(action === 'default' || actions.includes(action)
      ? []
      : [`roles.${action} names no action of this route (${[...actions, 'default'].join(', ')})`]),
  ]);
}
