/**
 * Signing secrets as the stores that keep them as JSON hold them (postgresql, mysql, mssql,
 * drizzle, disk): an array of `{ sealed, createdAt, expiresAt }` with the dates as ISO-8601
 * strings, so that every such store writes and reads the same document.
 */
import type { StoredSecret } from './types.ts';

/**
 * A signing secret in JSON: dates as ISO-8601 strings. A type rather than an interface, so that
 * postgres.js takes it as a JSON value (an interface has no implicit index signature).
 */
export type SecretJson = {
  sealed: string;
  createdAt: string;
  expiresAt: string | null;
};

export const secretsToJson = (secrets: readonly StoredSecret[]): SecretJson[] =>
  secrets.map((secret) => ({
    sealed: secret.sealed,
    createdAt: secret.createdAt.toISOString(),
    expiresAt: secret.expiresAt === null ? null : secret.expiresAt.toISOString(),
  }));

/**
 * The secrets of a JSON array written by `secretsToJson`. Lenient: an absent array reads as no
 * secret and an absent `expiresAt` as no end, so a row or file written by hand still reads.
 */
export const secretsFromJson = (json: readonly SecretJson[] | null | undefined): StoredSecret[] =>
  (json ?? []).map((secret) => ({
    sealed: secret.sealed,
    createdAt: new Date(secret.createdAt),
    expiresAt: secret.expiresAt === null || secret.expiresAt === undefined ? null : new Date(secret.expiresAt),
  }));
