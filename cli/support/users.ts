/** What the `users:*` and `sessions:*` commands share: the account core's dependencies, the link base, text forms. */
import type { AccountDeps } from '../../shared/accounts/deps.ts';
import { linkBase, passwordLinkUrl, setPasswordLinkFor } from '../../shared/accounts/password-links.ts';
import { OPERATOR } from '../../shared/access/actor.ts';
import { publicUser, type User } from '../../shared/accounts/users.ts';
import type { CliContext } from '../context.ts';
import { isoOrDash, table } from './text-forms.ts';

export const accountDeps = (context: CliContext): AccountDeps => ({
  config: context.config,
  sql: context.sql(),
  log: context.log,
  now: Date.now,
});

/** A set-password link for `user` (valid `auth.inviteTtl`), on `publicUrl` or the local web process. */
export async function setPasswordLink(
  context: CliContext,
  user: User,
): Promise<{ setPasswordUrl: string; expiresAt: Date }> {
  const deps = accountDeps(context);
  const { token, expiresAt } = await setPasswordLinkFor(deps, OPERATOR, user.id);
  return {
    setPasswordUrl: passwordLinkUrl(linkBase(deps, context.webOrigin), token),
    expiresAt,
  };
}

export function userText(user: User): string {
  return [
    `id:        ${user.id}`,
    `email:     ${user.email}`,
    `name:      ${user.name ?? '(none)'}`,
    `role:      ${user.role}`,
    `owner:     ${user.owner ?? '(every tenant)'}`,
    `password:  ${user.hasPassword ? 'set' : 'not set (follow a set-password link)'}`,
    `created:   ${isoOrDash(user.createdAt)}`,
    ...(user.disabledAt === null ? [] : [`disabled:  ${isoOrDash(user.disabledAt)}`]),
  ].join('\n');
}

export function userTable(users: readonly User[]): string {
  const rows = [
    ['ID', 'EMAIL', 'ROLE', 'OWNER', 'PASSWORD', 'CREATED', 'DISABLED'],
    ...users.map((u) => [
      u.id,
      u.email,
      u.role,
      u.owner ?? '-',
      u.hasPassword ? 'set' : 'not set',
      isoOrDash(u.createdAt),
      isoOrDash(u.disabledAt),
    ]),
  ];
  return table(rows);
}

export { publicUser };
