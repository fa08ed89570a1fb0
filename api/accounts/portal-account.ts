/**
 * What `/account` shows a tenant portal session, which has no account of its own: whose portal it
 * is, as which role, and what it may and may not do, each read from the permission table
 * (shared/access/permissions.ts), so the page says what the core decides.
 */
import { principalMay } from '../../shared/access/actor.ts';
import { OPERATIONS, OPERATION_TEXT } from '../../shared/access/permissions.ts';
import type { PortalPrincipal } from '../../shared/tokens/principal.ts';

export interface PortalAccount {
  owner: string;
  role: string;
  /** What the session may do, in the table's words and order. */
  may: string[];
  /** What it may not. */
  mayNot: string[];
}

export function portalAccount(principal: PortalPrincipal): PortalAccount {
  const may: string[] = [];
  const mayNot: string[] = [];
  for (const operation of OPERATIONS)
    (principalMay(principal, operation) ? may : mayNot).push(OPERATION_TEXT[operation]);
  return { owner: principal.owner, role: principal.roles[0], may, mayNot };
}
