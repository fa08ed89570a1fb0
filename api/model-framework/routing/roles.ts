/**
 * Who may run a route's action. The authentication step (the `user` slot of
 * api/pipeline.ts) sets `ctx.state.principal`; the role guard and the HAL links read it here,
 * so a client never gets a link it would be refused on.
 */

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

/** Problems with a `roles` option, for the route table's check at boot. */
export function roleRuleProblems(rule: unknown): string[] {
  const isList = (value: unknown) =>
    Array.isArray(value) && value.every((role) => typeof role === 'string' && role.length > 0);
  if (rule === undefined || isList(rule)) return [];
  if (typeof rule !== 'object' || rule === null) return ['roles must be a list of role names or a map action -> list'];
  return Object.entries(rule)
    .filter(([, value]) => !isList(value))
    .map(([action]) => `roles.${action} must be a list of role names`);
}
