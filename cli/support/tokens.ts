/** What the `tokens:*` commands share: the core's dependencies and the text forms of tokens. */
import type { ApiToken, TokenDeps } from '../../shared/tokens/tokens.ts';
import type { CliContext } from '../context.ts';
import { isoOrDash, table } from './text-forms.ts';

export const tokenDeps = (context: CliContext): TokenDeps => ({ sql: context.sql(), log: context.log });

/** Several lines describing one token (never its text). */
export function tokenText(token: ApiToken): string {
  return [
    `id:        ${token.id}`,
    `name:      ${token.name}`,
    `role:      ${token.role}`,
    `owner:     ${token.owner ?? '(every tenant)'}`,
    `prefix:    ${token.prefix}…`,
    `created:   ${isoOrDash(token.createdAt)}`,
    `expires:   ${token.expiresAt === null ? 'never' : isoOrDash(token.expiresAt)}`,
    ...(token.revokedAt === null ? [] : [`revoked:   ${isoOrDash(token.revokedAt)}`]),
  ].join('\n');
}

/** Tokens as aligned columns, one line each. */
export function tokenTable(tokens: readonly ApiToken[]): string {
  const rows = [
    ['ID', 'NAME', 'ROLE', 'OWNER', 'PREFIX', 'CREATED', 'LAST USED', 'EXPIRES', 'REVOKED'],
    ...tokens.map((t) => [
      t.id,
      t.name,
      t.role,
      t.owner ?? '-',
      `${t.prefix}…`,
      isoOrDash(t.createdAt),
      isoOrDash(t.lastUsedAt),
      isoOrDash(t.expiresAt),
      isoOrDash(t.revokedAt),
    ]),
  ];
  return table(rows);
}
