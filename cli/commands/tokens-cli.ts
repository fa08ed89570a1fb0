/** What the `tokens:*` commands share: the core's dependencies and the text forms of tokens. */
import type { ApiToken, TokenDeps } from '../../shared/tokens/tokens.ts';
import type { CliContext } from '../context.ts';

export const tokenDeps = (context: CliContext): TokenDeps => ({ sql: context.sql(), log: context.log });

const iso = (date: Date | null) => (date === null ? '-' : new Date(date).toISOString());

/** Several lines describing one token (never its text). */
export function tokenText(token: ApiToken): string {
  return [
    `id:        ${token.id}`,
    `name:      ${token.name}`,
    `role:      ${token.role}`,
    `owner:     ${token.owner ?? '(every tenant)'}`,
    `prefix:    ${token.prefix}…`,
    `created:   ${iso(token.createdAt)}`,
    `expires:   ${token.expiresAt === null ? 'never' : iso(token.expiresAt)}`,
    ...(token.revokedAt === null ? [] : [`revoked:   ${iso(token.revokedAt)}`]),
  ].join('\n');
}

/** Tokens as aligned columns, one line each. */
export function tokenTable(tokens: readonly ApiToken[]): string {
  const rows = [
    ['ID', 'NAME', 'ROLE', 'OWNER', 'PREFIX', 'CREATED', 'LAST USED', 'EXPIRES', 'REVOKED'],
    ...tokens.map((t) => [t.id, t.name, t.role, t.owner ?? '-', `${t.prefix}…`, iso(t.createdAt), iso(t.lastUsedAt), iso(t.expiresAt), iso(t.revokedAt)]),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join('  ')).join('\n');
}
