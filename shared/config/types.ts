import type { Environment } from './schema.ts';

/** The resolved configuration: durations in milliseconds, sizes in bytes, frozen. */
export interface Config {
  readonly env: Environment;
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string | null;
  readonly secret: string | null;
  readonly allowUnencryptedSecrets: boolean;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly trustProxy: boolean;
  readonly bodyLimit: number;
  readonly requestTimeout: number;
  readonly filterParameters: readonly string[];
  readonly db: { readonly poolMax: number };
  readonly api: {
    readonly perPage: number;
    readonly maxPerPage: number;
    readonly strict: boolean;
    readonly idempotency: false | { readonly ttl: number; readonly store: string | null };
  };
  readonly rateLimit: false | {
    readonly max: number;
    readonly windowMs: number;
    readonly enforceInDevelopment: boolean;
    readonly store: string | null;
    readonly auth: false | { readonly max: number; readonly windowMs: number; readonly paths: readonly string[] };
  };
  readonly shared: {
    readonly backend: 'none' | 'postgres' | 'redis';
    readonly url: string | null;
    readonly onError: 'closed' | 'open';
    readonly timeout: number;
  };
  readonly shutdown: { readonly signals: boolean; readonly delay: number; readonly drain: number };
  readonly helmet: false | {
    readonly options: Readonly<Record<string, unknown>>;
    readonly permissionsPolicy: Readonly<Record<string, unknown>>;
    readonly sendPermissionsPolicy: boolean;
  };
  readonly cors: { readonly origins: readonly string[]; readonly credentials: boolean };
  readonly graphql: false | {
    readonly path: string;
    readonly introspection: boolean;
    readonly maxDepth: number;
    readonly maxCost: number;
    readonly maxAliases: number;
    readonly maxTokens: number;
    readonly maxBytes: number;
  };
  readonly webhooks: {
    readonly store: string;
    readonly table: string;
    readonly queue: string;
    readonly install: boolean;
    readonly allowHttp: boolean;
    readonly allowPrivate: boolean;
    readonly maxAttempts: number;
    readonly timeout: number;
    readonly maxFanout: number;
    readonly concurrency: number;
    readonly backoff: { readonly base: number; readonly factor: number; readonly max: number; readonly jitter: number };
  };
  readonly worker: { readonly pollInterval: number; readonly heartbeat: number; readonly staleAfter: number };
}
