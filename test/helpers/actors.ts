/**
 * Callers as the faces hand them to the core (shared/access/actor.ts): a tenant's member or
 * viewer, made from a token's principal as REST and GraphQL make theirs.
 */
import { actorOf, type Actor } from '../../shared/access/actor.ts';

/** A `role` (default member) bound to tenant `owner`. */
export const tenantActor = (owner: string, role: 'member' | 'viewer' = 'member'): Actor =>
  actorOf({ id: `${role}-${owner}`, roles: [role], owner });
